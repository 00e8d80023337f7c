package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A program embedding a node the way the README shows, on a port the system picks. */
class EmbeddedServerTest {
    @Test
    void portZeroWithSeveralEventLoopsListensOnOneFreePort(@TempDir Path dir) throws Exception {
        KvServer server = KvServer.start(KvServerConfig.builder().port(0).eventLoops(3).dataDirectory(dir).build())
                .toCompletableFuture().get();
        try {
            assertTrue(server.port() > 0, "port " + server.port());
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v0/entity?id=k");
            // A client per request, so each is a new connection.
            for (int i = 0; i < 6; i++) {
                HttpClient client = HttpClient.newHttpClient();
                HttpResponse<Void> put = client.send(HttpRequest.newBuilder(uri).PUT(HttpRequest.BodyPublishers.ofString("v" + i)).build(),
                        HttpResponse.BodyHandlers.discarding());
                assertEquals(201, put.statusCode());
                HttpResponse<String> get = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals("v" + i, get.body());
            }
        } finally {
            server.stop().toCompletableFuture().get();
        }
    }
}
