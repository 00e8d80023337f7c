package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two and three real nodes on loopback: placement, quorums, failures and recovery. */
class ClusterTest {
    @TempDir
    Path dir;

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    @Test
    void twoNodesServeAnyKeyAndFromOneStoresEachKeyOnExactlyOneNode() throws Exception {
        TestCluster cluster = new TestCluster(dir, 2);
        try {
            int onFirst = 0;
            for (int i = 0; i < 100; i++) {
                assertEquals(201, cluster.put(i % 2, "id=key-" + i + "&ack=1&from=1", "v" + i));
            }
            for (int i = 0; i < 100; i++) {
                assertEquals("v" + i, text(cluster.get((i + 1) % 2, "id=key-" + i + "&ack=1&from=1")), "any node serves any key");
            }
            String first = cluster.localRange(0);
            String second = cluster.localRange(1);
            for (int i = 0; i < 100; i++) {
                String entry = "key-" + i + "\nv" + i;
                boolean a = first.contains(entry);
                boolean b = second.contains(entry);
                assertTrue(a ^ b, "key-" + i + " must be on exactly one node");
                onFirst += a ? 1 : 0;
            }
            assertTrue(onFirst > 25 && onFirst < 75, "keys spread over both nodes: " + onFirst + " of 100 on the first");
        } finally {
            cluster.close();
        }
    }

    @Test
    void threeNodesWriteExactlyFromCopiesWithDefaultsTwoOfThree() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            for (int from = 1; from <= 3; from++) {
                for (int i = 0; i < 10; i++) {
                    String key = "f" + from + "-" + i;
                    // ack = from: every copy is in place when the answer comes, so the count is final.
                    assertEquals(201, cluster.put(i % 3, "id=" + key + "&ack=" + from + "&from=" + from, "x"));
                    assertEquals(from, copies(cluster, key + "\nx"), key);
                }
            }
            assertEquals(201, cluster.put(0, "id=default", "d"));
            assertTrue(copies(cluster, "default\nd") >= 2, "default from=3 ack=2: at least two copies at once");
            cluster.stop(2);
            assertEquals(201, cluster.put(0, "id=two-up", "t"), "2/3 by default: two nodes are enough");
            assertEquals(504, cluster.put(0, "id=two-up&ack=3", "t"), "3/3 is not");
        } finally {
            cluster.close();
        }
    }

    @Test
    void twoNodesPutTwoOfTwoThenGetOneOfTwoSeesItWithEitherNodeDown() throws Exception {
        TestCluster cluster = new TestCluster(dir, 2);
        try {
            assertEquals(201, cluster.put(0, "id=k", "v")); // defaults for 2 nodes: 2/2
            assertEquals(201, cluster.put(1, "id=gone", "x"));
            assertEquals(202, cluster.delete(0, "id=gone&ack=2&from=2"));
            for (int down = 0; down < 2; down++) {
                cluster.stop(down);
                int up = 1 - down;
                assertEquals("v", text(cluster.get(up, "id=k&ack=1&from=2")), "node " + down + " down");
                assertEquals(404, cluster.get(up, "id=gone&ack=1&from=2").statusCode(), "tombstone, node " + down + " down");
                assertEquals(504, cluster.get(up, "id=k").statusCode(), "2/2 impossible with a node down");
                // Another key: a write answered 504 may still be applied where it reached, and hinted to the other node.
                assertEquals(504, cluster.put(up, "id=k-" + down, "lost"), "2/2 impossible with a node down");
                cluster.start(down);
            }
        } finally {
            cluster.close();
        }
    }

    @Test
    void aQuorumWriteMadeWhileANodeWasDownIsSeenWhenAnotherNodeIsDown() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            for (int i = 0; i < 3; i++) {
                assertEquals(201, cluster.put(i, "id=k" + i + "&ack=3", "to be deleted"));
            }
            for (int first = 0; first < 3; first++) {
                int second = (first + 1) % 3;
                String key = "id=while-" + first + "-down";
                cluster.stop(first);
                assertEquals(201, cluster.put(second, key, "v" + first), "2/3 with node " + first + " down");
                assertEquals(202, cluster.delete(second, "id=k" + first), "delete 2/3");
                cluster.start(first);
                cluster.stop(second);
                // The restarted node missed the write; the quorum read still meets a replica that has it.
                assertEquals("v" + first, text(cluster.get(first, key)), "written without " + first + ", read without " + second);
                assertEquals(404, cluster.get(first, "id=k" + first).statusCode(), "the newer tombstone wins");
                cluster.start(second);
            }
        } finally {
            cluster.close();
        }
    }

    @Test
    void theInternalRouteAnswersFromTheNodesOwnStoreAndIsNeverForwarded() throws Exception {
        TestCluster cluster = new TestCluster(dir, 2);
        try {
            assertEquals(201, cluster.put(0, "id=solo&ack=1&from=1", "one"));
            int holder = cluster.localRange(0).contains("solo\none") ? 0 : 1;
            String internal = Routes.INTERNAL_ENTITY + "?key=" + InternalCodec.encodeKey("solo".getBytes(StandardCharsets.UTF_8));
            HttpResponse<byte[]> own = cluster.send(holder, "GET", internal, null);
            assertEquals(200, own.statusCode());
            assertEquals("one", text(own));
            assertEquals("false", own.headers().firstValue(Headers.TOMBSTONE).orElse(null));
            assertTrue(Long.parseLong(own.headers().firstValue(Headers.TIMESTAMP).orElseThrow()) > 0);
            assertEquals(404, cluster.send(1 - holder, "GET", internal, null).statusCode(), "the other node does not ask the holder");
        } finally {
            cluster.close();
        }
    }

    private static int copies(TestCluster cluster, String entry) throws Exception {
        int copies = 0;
        for (int n = 0; n < cluster.size(); n++) {
            copies += cluster.localRange(n).contains(entry) ? 1 : 0;
        }
        return copies;
    }

    @Test
    void quorumInvariantsHoldWithOneNodeDownAndTooFewNodesGive504() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            assertEquals(201, cluster.put(0, "id=k", "v1")); // 2/3 by default
            assertEquals(201, cluster.put(1, "id=gone", "x"));
            assertEquals(202, cluster.delete(2, "id=gone"));
            for (int down = 0; down < 3; down++) {
                cluster.stop(down);
                int reader = (down + 1) % 3;
                assertEquals("v1", text(cluster.get(reader, "id=k")), "PUT 2/3 then GET 2/3 with node " + down + " down");
                assertEquals(404, cluster.get(reader, "id=gone").statusCode(), "DELETE 2/3 then GET 2/3");
                assertEquals(504, cluster.get(reader, "id=k&ack=3&from=3").statusCode(), "3 answers impossible");
                assertEquals(504, cluster.put(reader, "id=other&ack=3", "partial"), "3 acks impossible");
                cluster.start(down);
            }
            cluster.stop(1);
            cluster.stop(2);
            assertEquals(504, cluster.get(0, "id=k").statusCode(), "two of three down: no quorum");
            assertEquals(504, cluster.put(0, "id=other", "v2"));
            assertEquals(200, cluster.get(0, "id=k&ack=1").statusCode(), "ack=1 still works on the survivor");
        } finally {
            cluster.close();
        }
    }

    @Test
    void newestWriteWinsAndARestartedNodeServesItsData() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            for (int i = 0; i < 5; i++) {
                assertEquals(201, cluster.put(i % 3, "id=counter", "v" + i));
            }
            assertEquals("v4", text(cluster.get(1, "id=counter&ack=3")));
            cluster.stop(2);
            assertEquals(201, cluster.put(0, "id=counter", "while-2-was-down"));
            cluster.start(2);
            // Node 2 has the old version; a read of all three answers still returns the newest.
            assertEquals("while-2-was-down", text(cluster.get(2, "id=counter&ack=3")));
            assertEquals(201, cluster.put(2, "id=after-restart&ack=3", "ok"));
            assertEquals("ok", text(cluster.get(1, "id=after-restart&ack=1&from=3")));
        } finally {
            cluster.close();
        }
    }

    @Test
    void aPeerThatNeverAnswersCostsATimeoutNotAHang() throws Exception {
        // Accepts internode connections and reads every pipelined request, answers none.
        try (ServerSocket silent = new ServerSocket(0)) {
            Thread acceptor = new Thread(() -> swallowConnections(silent), "silent-peer");
            acceptor.setDaemon(true);
            acceptor.start();
            String self = "http://127.0.0.1:" + TestCluster.freePort();
            String peer = "http://127.0.0.1:" + silent.getLocalPort();
            KvServer node = KvServer.start(KvServerConfig.builder().port(URI.create(self).getPort()).self(self)
                    .cluster(List.of(self, peer)).dataDirectory(dir.resolve("node"))
                    .network(network -> network.eventLoops(1).replicaTimeout(Duration.ofMillis(300)))
                    .build()).toCompletableFuture().get();
            try {
                HttpClient http = HttpClient.newHttpClient();
                for (int round = 0; round < 2; round++) {
                    // More requests than one pipelined connection carries, all needing the silent peer.
                    List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
                    for (int i = 0; i < 40; i++) {
                        answers.add(http.sendAsync(HttpRequest.newBuilder(URI.create(self + "/v0/entity?id=k" + i + "&ack=2&from=2"))
                                .PUT(HttpRequest.BodyPublishers.ofString("v")).timeout(Duration.ofSeconds(20)).build(),
                                HttpResponse.BodyHandlers.discarding()));
                    }
                    for (CompletableFuture<HttpResponse<Void>> answer : answers) {
                        assertEquals(504, answer.get(20, TimeUnit.SECONDS).statusCode(), "round " + round);
                    }
                }
                // What this node can answer alone, it still answers.
                HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(self + "/v0/entity?id=k0&ack=1&from=2"))
                        .PUT(HttpRequest.BodyPublishers.ofString("alone")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(201, put.statusCode());
                HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(self + "/v0/entity?id=k0&ack=1&from=2"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, get.statusCode());
                assertEquals("alone", get.body());
            } finally {
                node.stop().toCompletableFuture().get();
            }
        }
    }

    private static void swallowConnections(ServerSocket server) {
        while (!server.isClosed()) {
            try {
                Socket connection = server.accept();
                Thread reader = new Thread(() -> {
                    try (connection; InputStream in = connection.getInputStream()) {
                        in.transferTo(OutputStream.nullOutputStream());
                    } catch (IOException closed) {
                        // the node closed the connection after its timeout
                    }
                }, "silent-peer-connection");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException closed) {
                return;
            }
        }
    }
}
