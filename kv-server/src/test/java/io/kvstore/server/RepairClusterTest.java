package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.wire.Routes;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Anti-entropy between real nodes on loopback: rebuilding a wiped replica, deletes, a peer killed mid-repair. */
@Tag("slow")
class RepairClusterTest {
    @TempDir
    Path dir;

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static JsonObject repair(TestCluster cluster, int node, int expectedStatus) throws Exception {
        HttpResponse<byte[]> response = cluster.send(node, "POST", Routes.ADMIN_REPAIR, null);
        assertEquals(expectedStatus, response.statusCode(), text(response));
        return new JsonObject(text(response));
    }

    @Test
    void aReplicaWhoseDataDirectoryWasDeletedIsRebuiltByOneRepairAndThenNothingIsSent() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            for (int i = 0; i < 500; i++) {
                assertEquals(201, cluster.put(i % 3, "id=key-" + i + "&ack=3", "value-" + i));
            }
            assertEquals(202, cluster.delete(0, "id=key-7&ack=3"));
            cluster.stop(2);
            deleteRecursively(dir.resolve("node-2"));
            cluster.start(2);
            assertEquals("", cluster.localRange(2));

            JsonObject rebuilt = repair(cluster, 2, 200);
            assertEquals(500, rebuilt.getLong("keysReceived"), "every key and the tombstone, from the first peer");
            assertEquals(0, rebuilt.getLong("keysSent"));
            assertEquals(cluster.localRange(0), cluster.localRange(2));

            for (int node = 0; node < 3; node++) {
                JsonObject consistent = repair(cluster, node, 200);
                assertEquals(0, consistent.getLong("keysSent"), consistent.encode());
                assertEquals(0, consistent.getLong("keysReceived"), consistent.encode());
                assertEquals(2 * 65536, consistent.getLong("segmentsCompared"));
            }
        } finally {
            cluster.close();
        }
    }

    @Test
    void writesMadeDuringARepairAreNeverUndoneByIt() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            for (int i = 0; i < 200; i++) {
                assertEquals(201, cluster.put(i % 3, "id=key-" + i + "&ack=3", "old-" + i));
            }
            cluster.stop(2);
            deleteRecursively(dir.resolve("node-2"));
            cluster.start(2);
            HttpRequest repair = HttpRequest.newBuilder(URI.create(cluster.url(2) + Routes.ADMIN_REPAIR))
                    .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build();
            CompletableFuture<HttpResponse<String>> running = cluster.http.sendAsync(repair, HttpResponse.BodyHandlers.ofString());
            for (int i = 0; i < 200; i += 2) {
                assertEquals(201, cluster.put(2, "id=key-" + i + "&ack=3", "new-" + i));
            }
            assertEquals(200, running.get().statusCode(), running.get().body());
            JsonObject settled = repair(cluster, 2, 200);
            assertEquals(0, settled.getLong("keysSent") + settled.getLong("keysReceived"), settled.encode());
            String range = cluster.localRange(2);
            assertEquals(cluster.localRange(0), range);
            for (int i = 0; i < 200; i += 2) {
                assertTrue(range.contains("key-" + i + "\nnew-" + i), "key-" + i);
            }
        } finally {
            cluster.close();
        }
    }

    @Test
    void aRepairOutlastingTheIdleTimeoutStillGetsItsAnswer() throws Exception {
        // 200 KB scanned at 64 KB/s by each side: a repair of about 3 s against an idle timeout of 1 s.
        TestCluster cluster = new TestCluster(dir, 2, b -> b
                .network(network -> network.idleTimeout(Duration.ofSeconds(1))).repairScanBytesPerSecond(64 << 10));
        try {
            for (int i = 0; i < 200; i++) {
                assertEquals(201, cluster.put(0, "id=key-" + i + "&ack=1&from=1", "x".repeat(1000)));
            }
            long started = System.nanoTime();
            JsonObject summary = repair(cluster, 0, 200);
            assertTrue(System.nanoTime() - started > 2_000_000_000L, "the repair outlasted the idle timeout");
            assertEquals(200, summary.getLong("keysSent") + summary.getLong("keysReceived"), summary.encode());
        } finally {
            cluster.close();
        }
    }

    @Test
    void deletesMadeWhileAReplicaWasDownNeverComeBackThroughRepair() throws Exception {
        // Without hints, which would carry the deletes to the replica when it is back: repair alone here.
        TestCluster cluster = new TestCluster(dir, 3, b -> b.replication(replication -> replication.hints(false)));
        try {
            for (int i = 0; i < 200; i++) {
                assertEquals(201, cluster.put(i % 3, "id=key-" + i + "&ack=3", "value-" + i));
            }
            cluster.stop(2);
            for (int i = 0; i < 200; i += 2) {
                assertEquals(202, cluster.delete(i % 2, "id=key-" + i + "&ack=2"));
            }
            cluster.start(2);
            assertTrue(cluster.localRange(2).contains("key-0\nvalue-0"), "the restarted replica still holds the old value");

            // From the stale replica's side and from a peer's: either way the tombstones win.
            JsonObject fromStale = repair(cluster, 2, 200);
            assertEquals(100, fromStale.getLong("keysReceived"));
            assertEquals(0, fromStale.getLong("keysSent"), "no deleted value is offered back");
            for (int node = 0; node < 3; node++) {
                JsonObject again = repair(cluster, node, 200);
                assertEquals(0, again.getLong("keysSent") + again.getLong("keysReceived"), again.encode());
            }
            String[] ranges = {cluster.localRange(0), cluster.localRange(1), cluster.localRange(2)};
            assertEquals(ranges[0], ranges[2]);
            assertEquals(ranges[1], ranges[2]);
            for (int i = 0; i < 200; i++) {
                // Values are "value-N" and the next key starts right after one: "key-N\nvalue-N" followed by "key-" or the end.
                boolean present = ranges[2].contains("key-" + i + "\nvalue-" + i + "key-") || ranges[2].endsWith("key-" + i + "\nvalue-" + i);
                assertEquals(i % 2 == 1, present, "key-" + i);
            }
            for (int i = 0; i < 200; i += 10) {
                assertEquals(i % 2 == 0 ? 404 : 200, cluster.get(2, "id=key-" + i + "&ack=3").statusCode(), "key-" + i);
            }
        } finally {
            cluster.close();
        }
    }

    @Test
    void aPeerKilledMidRepairFailsTheRepairCleanlyAndARerunSucceeds() throws Exception {
        int portA = TestCluster.freePort();
        int portB = TestCluster.freePort();
        String urlA = "http://127.0.0.1:" + portA;
        String urlB = "http://127.0.0.1:" + portB;
        String cluster = urlA + "," + urlB;
        // Without hints, which A would replay to B meanwhile: B gets the keys through repair alone.
        KvServer a = KvServer.start(KvServerConfig.builder().port(portA).self(urlA).cluster(List.of(urlA, urlB))
                .dataDirectory(dir.resolve("a"))
                .network(network -> network.eventLoops(1).replicaTimeout(Duration.ofSeconds(2)))
                .replication(replication -> replication.hints(false)).build())
                .toCompletableFuture().get();
        ChildServer b = null;
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try {
            // Written while B is down: only A holds them, and a repair has 16 MB to send.
            writeConcurrently(http, urlA, 1000, 16384);
            b = ChildServer.start(portB, dir.resolve("b"), "-Xmx256m", "--cluster", cluster, "--self", urlB, "--hints", "off");
            CompletableFuture<HttpResponse<String>> first = http.sendAsync(adminRepair(urlA), HttpResponse.BodyHandlers.ofString());
            b.awaitLine("repair tree of " + urlB + " for " + urlA + " built");
            b.process.destroyForcibly().waitFor();

            HttpResponse<String> failed = first.get();
            assertEquals(503, failed.statusCode(), failed.body());
            JsonObject failure = new JsonObject(failed.body());
            assertTrue(failure.getString("error").contains(urlB), failed.body());

            b = ChildServer.start(portB, dir.resolve("b"), "-Xmx256m", "--cluster", cluster, "--self", urlB, "--hints", "off");
            HttpResponse<String> rerun = http.send(adminRepair(urlA), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, rerun.statusCode(), rerun.body());
            JsonObject summary = new JsonObject(rerun.body());
            assertTrue(summary.getLong("keysSent") > 0 && summary.getLong("keysSent") <= 1000, rerun.body());
            assertEquals(localRange(http, urlA), localRange(http, urlB));
            HttpResponse<String> after = http.send(adminRepair(urlA), HttpResponse.BodyHandlers.ofString());
            assertEquals(0, new JsonObject(after.body()).getLong("keysSent"), after.body());
        } finally {
            if (b != null) {
                b.process.destroyForcibly().waitFor();
            }
            a.stop().toCompletableFuture().get();
        }
    }

    private static HttpRequest adminRepair(String url) {
        return HttpRequest.newBuilder(URI.create(url + Routes.ADMIN_REPAIR)).POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(60)).build();
    }

    private static String localRange(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + "/v0/entities?start=%00")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** PUTs {@code count} keys with values of {@code size} bytes, 16 at a time, acknowledged by one replica. */
    private static void writeConcurrently(HttpClient http, String url, int count, int size) throws Exception {
        byte[] value = new byte[size];
        java.util.Arrays.fill(value, (byte) 'v');
        Semaphore inFlight = new Semaphore(16);
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            inFlight.acquire();
            HttpRequest put = HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=key-" + i + "&ack=1"))
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(value)).timeout(Duration.ofSeconds(20)).build();
            answers.add(http.sendAsync(put, HttpResponse.BodyHandlers.discarding())
                    .thenApply(HttpResponse::statusCode).whenComplete((status, error) -> inFlight.release()));
        }
        for (CompletableFuture<Integer> answer : answers) {
            assertEquals(201, answer.get());
        }
    }

    private static void deleteRecursively(Path root) throws Exception {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
        assertFalse(Files.exists(root));
    }
}
