package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A program embedding a node the way the README shows, on a port the system picks, or over a store of its own. */
class EmbeddedServerTest {
    @Test
    void portZeroWithSeveralEventLoopsListensOnOneFreePort(@TempDir Path dir) throws Exception {
        KvServer server = KvServer.start(KvServerConfig.builder().port(0)
                .network(network -> network.eventLoops(3)).dataDirectory(dir).build())
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

    @Test
    void aStoreTheEmbedderOpenedHoldsTheNodesWritesAndIsClosedWhenTheNodeStops(@TempDir Path dir) throws Exception {
        Path own = dir.resolve("own-store");
        Path data = dir.resolve("node");
        KvServer server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(data).build(),
                Engine.LSM.open(DaoOptions.builder(own).build())).toCompletableFuture().get();
        try {
            HttpClient client = HttpClient.newHttpClient();
            URI entity = URI.create("http://127.0.0.1:" + server.port() + "/v0/entity?id=k");
            assertEquals(201, client.send(HttpRequest.newBuilder(entity).PUT(HttpRequest.BodyPublishers.ofString("mine")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            HttpResponse<String> status = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/v0/status")).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(KvServer.CUSTOM_ENGINE, new JsonObject(status.body()).getString("engine"));
        } finally {
            server.stop().toCompletableFuture().get();
        }
        // Closed by the node (else its directory lock would refuse this open), holding the write.
        try (Dao reopened = Engine.LSM.open(DaoOptions.builder(own).build())) {
            Entry entry = reopened.get("k".getBytes(StandardCharsets.UTF_8));
            assertNotNull(entry, "the write went to the embedder's store");
            assertArrayEquals("mine".getBytes(StandardCharsets.UTF_8), entry.value());
        }
        assertTrue(Files.isDirectory(data), "the node's own files (clock lease, cluster map) stay in its data directory");
    }

    @Test
    void aStoreGivenToANodeThatCannotStartIsClosed(@TempDir Path dir) throws Exception {
        Path own = dir.resolve("own-store");
        try (ServerSocket taken = new ServerSocket(0)) {
            ExecutionException failed = assertThrows(ExecutionException.class, () -> KvServer.start(
                    KvServerConfig.builder().port(taken.getLocalPort()).dataDirectory(dir.resolve("node")).build(),
                    Engine.LSM.open(DaoOptions.builder(own).build())).toCompletableFuture().get());
            assertNotNull(failed.getCause());
        }
        Engine.LSM.open(DaoOptions.builder(own).build()).close();
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "not a directory");
        assertThrows(ExecutionException.class, () -> KvServer.start(
                KvServerConfig.builder().port(0).dataDirectory(notADirectory).build(),
                Engine.LSM.open(DaoOptions.builder(own).build())).toCompletableFuture().get());
        Engine.LSM.open(DaoOptions.builder(own).build()).close();
    }
}
