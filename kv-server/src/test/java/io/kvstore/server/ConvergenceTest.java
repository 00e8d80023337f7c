package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas that converge, on three real nodes in their own JVMs killed with SIGKILL and frozen with
 * SIGSTOP: hinted handoff alone, read repair alone, and both together bring a replica that missed writes
 * and deletes up to date; nothing deleted comes back; quorum reads are monotonic; hints survive a kill of
 * the node that keeps them. Each node's replica timeout is 1 s.
 */
@Tag("slow")
class ConvergenceTest {
    private static final int KEYS = 150;

    @TempDir
    Path dir;

    private static String key(int i) {
        return "key" + i;
    }

    /** Writes {@link #KEYS} keys at 2/3 through node 0, then deletes every tenth. */
    private static void writeAndDelete(ChildCluster cluster, int coordinator) throws Exception {
        for (int i = 0; i < KEYS; i++) {
            assertEquals(201, cluster.client(coordinator).put(0, "id=" + key(i) + "&ack=2&from=3", "value" + i), key(i));
        }
        for (int i = 0; i < KEYS; i += 10) {
            assertEquals(202, cluster.client(coordinator).delete(0, "id=" + key(i) + "&ack=2&from=3"), key(i));
        }
    }

    /** Whether node {@code node} holds every live key and a tombstone for every deleted one. */
    private static boolean upToDate(ChildCluster cluster, int node) throws Exception {
        for (int i = 0; i < KEYS; i++) {
            String expected = i % 10 == 0 ? "tombstone" : "value" + i;
            if (!expected.equals(cluster.local(node, key(i)))) {
                return false;
            }
        }
        return true;
    }

    private static void assertUpToDate(ChildCluster cluster, int node) throws Exception {
        for (int i = 0; i < KEYS; i++) {
            assertEquals(i % 10 == 0 ? "tombstone" : "value" + i, cluster.local(node, key(i)), "node " + node + ", " + key(i));
        }
    }

    @Test
    void hintsAloneBringAKilledReplicaUpToDateEvenAfterTheirCoordinatorIsKilledToo() throws Exception {
        try (ChildCluster cluster = new ChildCluster(dir, 3, "--read-repair", "off")) {
            cluster.kill(2);
            writeAndDelete(cluster, 0);
            ChildCluster.await("node 0 sees node 2 down and keeps a hint per write and delete",
                    () -> "down".equals(cluster.peer(0, 2).getString("state"))
                            && cluster.peer(0, 2).getLong("hintsPending") == KEYS + KEYS / 10);
            assertEquals("up", cluster.peer(0, 1).getString("state"));
            assertEquals(0L, cluster.peer(0, 1).getLong("hintsPending"));
            assertTrue(cluster.peer(0, 2).getLong("hintBytesPending") > 0);
            cluster.kill(0);
            cluster.start(2);
            cluster.start(0);
            ChildCluster.await("node 2 up to date through the restarted node 0's hints", () -> upToDate(cluster, 2));
            ChildCluster.await("node 0 has no hints left", () -> cluster.peer(0, 2).getLong("hintsPending") == 0);
            assertEquals("up", cluster.peer(0, 2).getString("state"));
            assertEquals(KEYS + KEYS / 10, cluster.status(0).getJsonObject("hints").getLong("replayed"));
        }
    }

    @Test
    void readRepairAloneRepairsWhatQuorumReadsMeetAndDeletesNeverComeBack() throws Exception {
        try (ChildCluster cluster = new ChildCluster(dir, 3, "--hints", "off")) {
            for (int i = 0; i < KEYS; i += 10) {
                assertEquals(201, cluster.client(0).put(0, "id=" + key(i) + "&ack=3&from=3", "before"), "on all three");
            }
            cluster.kill(2);
            writeAndDelete(cluster, 0);
            cluster.start(2);
            assertEquals("before", cluster.local(2, key(0)), "node 2 missed the delete: no hints to bring it");
            for (int i = 0; i < KEYS; i++) {
                // Every replica answers an ack=3 read: the stale one is repaired before the answer.
                int status = cluster.client(i % 3).get(0, "id=" + key(i) + "&ack=3&from=3").statusCode();
                assertEquals(i % 10 == 0 ? 404 : 200, status, key(i));
            }
            assertUpToDate(cluster, 2);
            for (int i = 0; i < KEYS; i += 10) {
                for (int node = 0; node < 3; node++) {
                    assertEquals(404, cluster.client(node).get(0, "id=" + key(i) + "&ack=1&from=3").statusCode(),
                            "deleted " + key(i) + " came back through node " + node);
                }
            }
        }
    }

    @Test
    void aWriteThatFailedOnOneReplicaIsSeenByEveryQuorumReadOnceOneSawIt() throws Exception {
        try (ChildCluster cluster = new ChildCluster(dir, 3, "--hints", "off")) {
            List<String> partial = new ArrayList<>();
            cluster.kill(1);
            cluster.kill(2);
            for (int i = 0; i < 20; i++) {
                assertEquals(504, cluster.client(0).put(0, "id=partial" + i + "&ack=2&from=3", "lonely"),
                        "stored on node 0 alone, then refused");
                partial.add("partial" + i);
            }
            cluster.start(1);
            cluster.start(2);
            for (String key : partial) {
                assertEquals("lonely", new String(cluster.client(0).get(0, "id=" + key + "&ack=2&from=3").body(),
                        StandardCharsets.UTF_8), "node 0's quorum read meets its own copy");
                for (int node = 1; node < 3; node++) {
                    assertEquals(200, cluster.client(node).get(0, "id=" + key + "&ack=2&from=3").statusCode(),
                            "a later quorum read through node " + node + " sees what an earlier one returned: " + key);
                }
            }
        }
    }

    @Test
    void aFrozenReplicaNeitherStallsQuorumRequestsNorMissesWrites() throws Exception {
        try (ChildCluster cluster = new ChildCluster(dir, 3)) {
            cluster.freeze(2);
            long slowest = 0;
            // Each write needs two answers of three; the frozen node's never comes, and must not be waited for.
            for (int i = 0; i < KEYS; i++) {
                long start = System.nanoTime();
                assertEquals(201, cluster.client(i % 2).put(0, "id=" + key(i) + "&ack=2&from=3", "value" + i), key(i));
                slowest = Math.max(slowest, System.nanoTime() - start);
            }
            for (int i = 0; i < KEYS; i += 10) {
                assertEquals(202, cluster.client(0).delete(0, "id=" + key(i) + "&ack=2&from=3"), key(i));
            }
            assertTrue(TimeUnit.NANOSECONDS.toMillis(slowest) < 1000,
                    "a write waited " + TimeUnit.NANOSECONDS.toMillis(slowest) + " ms: longer than its two answers take");
            cluster.thaw(2);
            ChildCluster.await("node 2 up to date after SIGCONT", () -> upToDate(cluster, 2));
        }
    }

    @Test
    void everythingTogetherConvergesAReplicaKilledDuringWritesAndDeletes() throws Exception {
        try (ChildCluster cluster = new ChildCluster(dir, 3)) {
            for (int i = 0; i < KEYS; i++) {
                if (i == KEYS / 3) {
                    cluster.kill(2);
                }
                assertEquals(201, cluster.client(i % 2).put(0, "id=" + key(i) + "&ack=2&from=3", "value" + i), key(i));
            }
            for (int i = 0; i < KEYS; i += 10) {
                assertEquals(202, cluster.client(1).delete(0, "id=" + key(i) + "&ack=2&from=3"), key(i));
            }
            cluster.start(2);
            ChildCluster.await("node 2 up to date", () -> upToDate(cluster, 2));
            for (int i = 0; i < KEYS; i += 10) {
                assertEquals(404, cluster.client(2).get(0, "id=" + key(i) + "&ack=2&from=3").statusCode(), key(i));
            }
        }
    }
}
