package io.kvstore.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiscardingNodeTest {
    @Test
    void acknowledgesEveryWriteAndFindsNothing(@TempDir Path dir) throws Exception {
        KvServer node = KvServer.start(KvServerConfig.fromCommandLine("--port", "0", "--data-dir", dir.toString()),
                new DiscardingDao()).toCompletableFuture().get();
        try {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + node.port();
            URI entity = URI.create(base + "/v0/entity?id=k");
            assertEquals(201, client.send(HttpRequest.newBuilder(entity).PUT(HttpRequest.BodyPublishers.ofString("v")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            assertEquals(404, client.send(HttpRequest.newBuilder(entity).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode());
            HttpResponse<String> range = client.send(HttpRequest.newBuilder(URI.create(base + "/v0/entities?start=a")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, range.statusCode());
            assertEquals("", range.body());
            HttpResponse<String> status = client.send(HttpRequest.newBuilder(URI.create(base + "/v0/status")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(KvServer.CUSTOM_ENGINE, new JsonObject(status.body()).getString("engine"));
        } finally {
            node.stop().toCompletableFuture().get();
        }
    }
}
