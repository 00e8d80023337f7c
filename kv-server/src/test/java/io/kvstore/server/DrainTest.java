package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.wire.Headers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The announcements a stopping and a restarted node send their peers: their bad inputs, what a peer does
 * with them (leaves the node out and hints its writes, takes it back when it says it serves), and what
 * the stopping node itself answers meanwhile (503 to probes, {@code Connection: close} on every response).
 */
@Tag("slow")
class DrainTest {
    @TempDir
    Path dir;

    @Test
    void theAnnouncementsNameAKnownNodeAndOneThatServesAgainIsTakenBackAtOnce() throws Exception {
        TestCluster cluster = new TestCluster(dir, 2);
        try {
            assertEquals(400, draining(cluster, null).statusCode(), "no node named");
            HttpResponse<byte[]> unknown = draining(cluster, "http://127.0.0.1:1");
            assertEquals(404, unknown.statusCode());
            assertTrue(body(unknown).contains("not a node of this map"), body(unknown));
            HttpResponse<byte[]> get = cluster.send(0, "GET", "/internal/v0/draining", null);
            assertEquals(405, get.statusCode());
            assertEquals("POST, DELETE", get.headers().firstValue("Allow").orElse(null));

            assertEquals(204, draining(cluster, cluster.url(1)).statusCode());
            HttpRequest serving = HttpRequest.newBuilder(URI.create(cluster.url(0) + "/internal/v0/draining"))
                    .DELETE().header(Headers.NODE, cluster.url(1)).timeout(Duration.ofSeconds(10)).build();
            assertEquals(204, cluster.http.send(serving, HttpResponse.BodyHandlers.ofByteArray()).statusCode());
            assertEquals("up", peer(cluster, 0, 1).getString("state"), "a node that says it serves is taken back at once");
            assertEquals(201, cluster.put(0, "id=k&ack=2&from=2", "v"), "both replicas are asked again");
        } finally {
            cluster.close();
        }
    }

    @Test
    void aStoppingNodeFailsItsProbesAndAsksClientsToCloseTheirConnectionsWhileItDrains() throws Exception {
        TestCluster cluster = new TestCluster(dir, 2,
                b -> b.network(network -> network.drainGrace(Duration.ofSeconds(3))));
        try {
            assertEquals(204, cluster.send(1, "GET", "/internal/v0/ping", null).statusCode());
            CompletionStage<Void> stopped = cluster.beginStop(1);
            ChildCluster.await("node 1 drains", () -> cluster.send(1, "GET", "/internal/v0/ping", null).statusCode() == 503);
            assertEquals("draining", peer(cluster, 0, 1).getString("state"), "node 0 was told before the grace began");
            HttpResponse<byte[]> status = cluster.send(1, "GET", "/v0/status", null);
            assertEquals(200, status.statusCode(), "the draining node still serves during the grace");
            assertEquals("close", status.headers().firstValue("Connection").orElse(null));
            assertEquals(201, cluster.put(0, "id=during&ack=1&from=2", "v"), "node 0 writes without it");
            stopped.toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertEquals("draining", peer(cluster, 0, 1).getString("state"), "stopped, it stays out");
            assertTrue(peer(cluster, 0, 1).getLong("hintsPending") >= 1, "the write it missed waits as a hint");
            cluster.start(1);
            ChildCluster.await("node 0 finds node 1 serving again", () -> "up".equals(peer(cluster, 0, 1).getString("state")));
            ChildCluster.await("the hint is delivered", () -> peer(cluster, 0, 1).getLong("hintsPending") == 0);
            assertEquals("v", body(cluster.get(1, "id=during&ack=1&from=1")));
        } finally {
            cluster.close();
        }
    }

    private static HttpResponse<byte[]> draining(TestCluster cluster, String node) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(cluster.url(0) + "/internal/v0/draining"))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10));
        if (node != null) {
            request.header(Headers.NODE, node);
        }
        return cluster.http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static JsonObject peer(TestCluster cluster, int node, int peer) throws Exception {
        JsonArray peers = new JsonObject(body(cluster.send(node, "GET", "/v0/status", null))).getJsonArray("peers");
        for (int i = 0; i < peers.size(); i++) {
            if (peers.getJsonObject(i).getString("url").equals(cluster.url(peer))) {
                return peers.getJsonObject(i);
            }
        }
        throw new AssertionError(cluster.url(peer) + " is not among the peers of node " + node + ": " + peers);
    }

    private static String body(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
