package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v0/console}: the node serving the web console gathers every member's status and request
 * rates itself, so a member that is down or stalled must show as unreachable within the console's
 * deadline rather than hold the answer, and the route is as closed as {@code /v0/status} when a client
 * token is configured.
 */
@Tag("slow")
class ConsoleRouteTest {
    private static final String SECRET = "0123456789abcdef0123456789abcdef";
    private static final String CLIENT_TOKEN = "console-client-token-0123456789";

    @TempDir
    Path dir;
    private TestCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void showsEveryNodeWithItsStatusShareAndRates() throws Exception {
        cluster = new TestCluster(dir, 3);
        // A node started before its peers holds them down until its next probe finds them.
        JsonObject first = console(0, null);
        for (long until = System.nanoTime() + 20_000_000_000L; !allUp(first) && System.nanoTime() < until; ) {
            Thread.sleep(200);
            first = console(0, null);
        }
        assertEquals(cluster.url(0), first.getString("node"));
        assertEquals(1, first.getLong("epoch"));
        JsonArray nodes = first.getJsonArray("nodes");
        assertEquals(3, nodes.size());
        double shares = 0;
        for (int i = 0; i < 3; i++) {
            JsonObject node = nodes.getJsonObject(i);
            assertEquals(cluster.url(i), node.getString("url"));
            assertEquals("normal", node.getString("state"));
            assertTrue(node.getBoolean("reachable"), node.encode());
            assertEquals("up", node.getString("liveness"), node.encode());
            assertEquals(cluster.url(i), node.getJsonObject("status").getString("node"));
            assertNotNull(node.getJsonObject("status").getJsonObject("storage"));
            assertEquals(i == 0, node.getBoolean("self"));
            shares += node.getDouble("keyShare");
        }
        assertEquals(1.0, shares, 1e-9);
        assertTrue(first.getJsonObject("changes").getBoolean("reachable"), first.encode());
        for (int i = 0; i < 50; i++) {
            assertEquals(201, cluster.put(i % 3, "id=k" + i, "v" + i));
        }
        Thread.sleep(1100);
        JsonObject second = console(0, null);
        double rate = 0;
        boolean sawPut = false;
        for (Object each : second.getJsonArray("nodes")) {
            JsonObject requests = ((JsonObject) each).getJsonObject("requests");
            assertNotNull(requests, second.encode());
            rate += requests.getDouble("requestsPerSecond");
            for (Object op : requests.getJsonArray("operations")) {
                JsonObject operation = (JsonObject) op;
                assertFalse(operation.getString("operation").contains("/v0/console"), "the console's own calls are left out");
                if (operation.getString("operation").equals("PUT /v0/entity")) {
                    sawPut = true;
                    assertTrue(operation.getDouble("p99Millis") >= operation.getDouble("p50Millis"), operation.encode());
                    assertTrue(operation.getDouble("p50Millis") > 0, operation.encode());
                    assertEquals(0.0, operation.getDouble("errorsPerSecond"));
                }
            }
        }
        assertTrue(rate > 0, second.encode());
        assertTrue(sawPut, second.encode());
    }

    @Test
    void aDeadOrSilentMemberIsShownUnreachableQuickly() throws Exception {
        cluster = new TestCluster(dir, 3);
        cluster.stop(2);
        long start = System.nanoTime();
        JsonObject view = console(0, null);
        long millis = (System.nanoTime() - start) / 1_000_000;
        JsonObject dead = view.getJsonArray("nodes").getJsonObject(2);
        assertFalse(dead.getBoolean("reachable"), dead.encode());
        assertNotNull(dead.getString("error"));
        assertTrue(millis < 4_000, "answered in " + millis + " ms");
        assertTrue(view.getJsonArray("nodes").getJsonObject(1).getBoolean("reachable"));
        // A member that accepts connections and never answers: the deadline, not the connection, ends the wait.
        int port = URI.create(cluster.url(2)).getPort();
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(port)) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            start = System.nanoTime();
            view = console(0, null);
            millis = (System.nanoTime() - start) / 1_000_000;
            JsonObject stalled = view.getJsonArray("nodes").getJsonObject(2);
            assertFalse(stalled.getBoolean("reachable"), stalled.encode());
            assertTrue(millis < 5_000, "answered in " + millis + " ms");
            assertTrue(view.getJsonArray("nodes").getJsonObject(0).getBoolean("reachable"));
        } finally {
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    @Test
    void needsTheClientTokenWhenOneIsConfiguredAndSignsItsCallsToMembers() throws Exception {
        Path secret = SecurityTest.secretFile(dir, "secret", SECRET);
        Path client = SecurityTest.secretFile(dir, "client", CLIENT_TOKEN);
        cluster = new TestCluster(dir, 3, b -> b.security(s -> s.clusterSecretFile(secret).clientTokenFile(client)));
        assertEquals(401, get(0, "/v0/console", null).statusCode());
        assertEquals(403, get(0, "/v0/console", "Bearer wrong").statusCode());
        JsonObject view = console(1, "Bearer " + CLIENT_TOKEN);
        for (Object node : view.getJsonArray("nodes")) {
            assertTrue(((JsonObject) node).getBoolean("reachable"), view.encode());
        }
        assertTrue(view.getJsonObject("changes").getBoolean("reachable"), view.encode());
        // The page itself loads without the token, to ask for it.
        assertEquals(200, get(0, "/ui", null).statusCode());
    }

    @Test
    void withoutAClusterSecretPassesTheClientTokenOnToTheMembers() throws Exception {
        Path client = SecurityTest.secretFile(dir, "client", CLIENT_TOKEN);
        cluster = new TestCluster(dir, 2, b -> b.security(s -> s.clientTokenFile(client)));
        JsonObject view = console(0, "Bearer " + CLIENT_TOKEN);
        for (Object node : view.getJsonArray("nodes")) {
            assertTrue(((JsonObject) node).getBoolean("reachable"), view.encode());
        }
    }

    @Test
    void refusesOtherMethodsParametersAndPaths() throws Exception {
        cluster = new TestCluster(dir, 1);
        HttpResponse<byte[]> post = cluster.send(0, "POST", "/v0/console", new byte[0]);
        assertEquals(405, post.statusCode());
        assertEquals("GET", post.headers().firstValue("Allow").orElse(""));
        assertEquals(400, cluster.send(0, "GET", "/v0/console?node=x", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/console/", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/consoles", null).statusCode());
        HttpResponse<byte[]> ok = cluster.send(0, "GET", "/v0/console", null);
        assertEquals("application/json", ok.headers().firstValue("Content-Type").orElse(""));
        assertEquals(1, new JsonObject(new String(ok.body(), StandardCharsets.UTF_8)).getJsonArray("nodes").size());
    }

    private static boolean allUp(JsonObject view) {
        for (Object node : view.getJsonArray("nodes")) {
            if (!"up".equals(((JsonObject) node).getString("liveness"))) {
                return false;
            }
        }
        return true;
    }

    private JsonObject console(int node, String authorization) throws Exception {
        HttpResponse<byte[]> response = get(node, "/v0/console", authorization);
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertEquals(200, response.statusCode(), body);
        return new JsonObject(body);
    }

    private HttpResponse<byte[]> get(int node, String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(cluster.url(node) + path)).timeout(Duration.ofSeconds(20));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return cluster.http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}
