package io.kvstore.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class CeilingServerTest {
    @Test
    void runsOneListenerOnEachEventLoopAndAnswersTheProtocolsStatuses() throws Exception {
        CeilingServer ceiling = CeilingServer.start(0, 2, 100, true).toCompletionStage().toCompletableFuture().get();
        try {
            // Two listeners on one loop would measure one event loop whatever --event-loops said.
            assertEquals(2, ceiling.eventLoopThreads().size(), ceiling.eventLoopThreads().toString());
            HttpClient client = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + ceiling.port() + "/v0/entity?id=k");
            HttpResponse<byte[]> get = client.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, get.statusCode());
            assertEquals(100, get.body().length);
            HttpResponse<Void> put = client.send(HttpRequest.newBuilder(uri).PUT(HttpRequest.BodyPublishers.ofString("v")).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertEquals(201, put.statusCode());
            HttpResponse<Void> delete = client.send(HttpRequest.newBuilder(uri).DELETE().build(), HttpResponse.BodyHandlers.discarding());
            assertEquals(202, delete.statusCode());
        } finally {
            ceiling.stop().toCompletionStage().toCompletableFuture().get();
        }
    }
}
