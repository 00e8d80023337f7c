package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.internal.TokenAllocator;
import io.kvstore.cluster.internal.membership.OwnedKeys;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.cluster.membership.RingTokens;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cluster that grows and shrinks online, with real nodes on loopback. */
@Tag("slow")
class MembershipTest {
    @TempDir
    Path dir;

    private static int count(String text, char c) {
        int n = 0;
        for (int i = 0; i < text.length(); i++) {
            n += text.charAt(i) == c ? 1 : 0;
        }
        return n;
    }

    @Test
    void aSeededClusterServesItsMapAsJson() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 2, b -> b).startSeeds()) {
            ClusterMap map = nodes.map(1);
            assertEquals(1, map.epoch());
            assertEquals(2, map.replicationFactor());
            assertEquals("ring", map.partitioner());
            assertEquals(RingTokens.ALLOCATED, map.ringTokens(), "a new cluster on the ring allocates its tokens");
            assertEquals(TokenAllocator.DEFAULT_TOKENS, map.virtualNodes());
            assertEquals(nodes.urls, map.urls());
            assertFalse(map.inTransition());
            HttpResponse<String> json = nodes.send(0, "GET", "/v0/cluster", null);
            assertTrue(json.body().contains("\"nodes\":[{\"url\":\"" + nodes.urls.get(0) + "\",\"state\":\"normal\",\"tokens\":[\""),
                    json.body());
            assertEquals(405, nodes.send(0, "POST", "/v0/cluster", null).statusCode());
        }
    }

    @Test
    void growThreeToFourWhileWritingLosesNoAcknowledgedWrite() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 3, 3, b -> b).startSeeds()) {
            for (int i = 0; i < 3000; i++) {
                assertEquals(201, nodes.send(i % 3, "PUT", "/v0/entity?id=pre-" + i + "&ack=2&from=3", "v" + i + ";").statusCode());
            }
            Queue<String> acknowledged = new ConcurrentLinkedQueue<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger failed = new AtomicInteger();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                Random random = new Random(1);
                for (int i = 0; writing.get(); i++) {
                    String key = "during-" + i;
                    try {
                        int status = nodes.send(random.nextInt(3), "PUT", "/v0/entity?id=" + key + "&ack=2&from=3", "d" + i + ";")
                                .statusCode();
                        if (status == 201) {
                            acknowledged.add(key);
                        } else {
                            failed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                }
            });
            nodes.start(3);
            nodes.node(3).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
            writing.set(false);
            writer.get(30, TimeUnit.SECONDS);
            ClusterMap map = nodes.awaitSameMap(10);
            assertEquals(4, map.owners().size());
            assertEquals(NodeState.NORMAL, map.state(nodes.urls.get(3)));
            assertEquals(4, map.epoch(), "joining, reads moved, then normal");
            assertTrue(acknowledged.size() > 10, "writes went on during the join: " + acknowledged.size());
            int missed = 0;
            for (String key : acknowledged) {
                for (int node = 0; node < 4; node++) {
                    if (nodes.send(node, "GET", "/v0/entity?id=" + key + "&ack=2&from=3", null).statusCode() != 200) {
                        missed++;
                    }
                }
            }
            for (int i = 0; i < 3000; i += 7) {
                assertEquals("v" + i + ";", nodes.send(3, "GET", "/v0/entity?id=pre-" + i + "&ack=2&from=3", null).body());
            }
            assertEquals(0, missed, "quorum reads that missed an acknowledged write, of " + acknowledged.size());
            int onNewcomer = count(nodes.localRange(3), ';');
            int total = 3000 + acknowledged.size();
            double share = 3.0 / 4;
            assertTrue(Math.abs(onNewcomer - share * total) <= 0.3 * share * total,
                    "the newcomer holds " + onNewcomer + " of " + total + " keys; its share is RF/N = 3/4");

            // Once the join completed, the old owners drop the keys they gave away, on their own.
            awaitFewerKeys(nodes, 0, total);
            // An operator's cleanup on every node leaves each holding exactly the keys it owns.
            for (int node = 0; node < 4; node++) {
                HttpResponse<String> cleanup = nodes.send(node, "POST", "/v0/admin/cleanup", null);
                assertEquals(200, cleanup.statusCode(), cleanup.body());
                assertEquals(map.epoch(), new JsonObject(cleanup.body()).getLong("epoch"), cleanup.body());
            }
            List<String> keys = new ArrayList<>(acknowledged);
            for (int i = 0; i < 3000; i++) {
                keys.add("pre-" + i);
            }
            for (int node = 0; node < 4; node++) {
                Set<String> held = localKeys(nodes, node);
                Set<String> owned = new HashSet<>();
                for (String key : keys) {
                    if (new OwnedKeys(map, nodes.urls.get(node)).keeps(key.getBytes(StandardCharsets.UTF_8))) {
                        owned.add(key);
                    }
                }
                assertEquals(owned, held, "node " + node + " holds exactly the keys it owns");
            }
            for (int i = 0; i < keys.size(); i++) {
                assertEquals(200, nodes.send(i % 4, "GET", "/v0/entity?id=" + keys.get(i) + "&ack=2&from=3", null).statusCode(),
                        keys.get(i));
            }
        }
    }

    /** The keys of this node's own entries (each value ends with ';'). */
    private static Set<String> localKeys(MembershipNodes nodes, int node) throws Exception {
        Set<String> keys = new HashSet<>();
        for (String entry : nodes.localRange(node).split(";")) {
            if (!entry.isEmpty()) {
                keys.add(entry.substring(0, entry.indexOf('\n')));
            }
        }
        return keys;
    }

    private static void awaitFewerKeys(MembershipNodes nodes, int node, int total) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int held;
        while ((held = count(nodes.localRange(node), ';')) >= total) {
            assertTrue(System.nanoTime() < deadline, "node " + node + " still holds " + held + " of " + total
                    + " keys 30 s after the join");
            Thread.sleep(100);
        }
    }

    @Test
    void concurrentJoinsThroughDifferentMembersEndOnOneMapAndTheLoserIsToldWhy() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 5, 3, 2, b -> b.streamBatchBytes(256 << 10).streamBytesPerSecond(200_000)).startSeeds()) {
            String value = "x".repeat(200);
            for (int i = 0; i < 3000; i++) {
                nodes.send(i % 3, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", value);
            }
            CompletableFuture<KvServer> d = nodes.startWith(3, nodes.config(3).join(nodes.urls.get(0)).build());
            CompletableFuture<KvServer> e = nodes.startWith(4, nodes.config(4).join(nodes.urls.get(1)).build());
            int started = 0;
            String refusal = null;
            for (CompletableFuture<KvServer> start : List.of(d, e)) {
                try {
                    start.get(60, TimeUnit.SECONDS).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
                    started++;
                } catch (ExecutionException failure) {
                    refusal = failure.getCause().getMessage();
                }
            }
            assertEquals(1, started, "exactly one of two concurrent joins goes through");
            assertTrue(refusal != null && refusal.contains("409") && refusal.contains("one change at a time"), refusal);
            ClusterMap map = nodes.awaitSameMap(10);
            assertEquals(4, map.members().size());
            assertEquals(4, map.epoch(), "joining, reads moved, then normal");
        }
    }

    @Test
    void decommissionShrinksFourToThreeAndEveryKeyStaysReadable() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 4, 3, b -> b).startSeeds()) {
            for (int i = 0; i < 2000; i++) {
                assertEquals(201, nodes.send(i % 4, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=3", "v" + i).statusCode());
            }
            HttpResponse<String> answer = nodes.send(1, "POST", "/v0/admin/decommission", null);
            assertEquals(200, answer.statusCode(), answer.body());
            assertTrue(answer.body().contains("\"status\":\"done\""), answer.body());
            HttpResponse<String> cleanup = nodes.send(1, "POST", "/v0/admin/cleanup", null);
            assertEquals(409, cleanup.statusCode(), "a node that left owns nothing to clean up for: " + cleanup.body());
            assertTrue(cleanup.body().contains("owns no range"), cleanup.body());
            nodes.stop(1);
            ClusterMap map = nodes.awaitSameMap(10);
            assertEquals(List.of(nodes.urls.get(0), nodes.urls.get(2), nodes.urls.get(3)), map.urls());
            for (int i = 0; i < 2000; i++) {
                int node = new int[] {0, 2, 3}[i % 3];
                assertEquals("v" + i, nodes.send(node, "GET", "/v0/entity?id=k" + i + "&ack=2&from=3", null).body(), "k" + i);
            }
        }
    }

    /**
     * A decommissioned node started again on its old directory with --join holds writes the cluster
     * has overwritten or deleted since: it drops them before it asks to join, and takes what it owns
     * from the streams.
     */
    @Test
    void aNodeJoiningAgainOnItsOldDirectoryDropsWhatItHeldBeforeItJoins() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 4, 2, b -> b)) {
            nodes.startSeeds();
            for (int i = 0; i < 1000; i++) {
                assertEquals(201, nodes.send(i % 4, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", "old" + i + ";").statusCode());
            }
            HttpResponse<String> left = nodes.send(3, "POST", "/v0/admin/decommission", null);
            assertEquals(200, left.statusCode(), left.body());
            int held = count(nodes.localRange(3), ';');
            assertTrue(held > 200, "the node left with its copies: " + held);
            nodes.stop(3);
            for (int i = 0; i < 1000; i++) {
                HttpResponse<String> answer = i % 2 == 0
                        ? nodes.send(i % 3, "DELETE", "/v0/entity?id=k" + i + "&ack=2&from=2", null)
                        : nodes.send(i % 3, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", "new" + i + ";");
                assertEquals(i % 2 == 0 ? 202 : 201, answer.statusCode(), "k" + i);
            }
            try (LogCapture log = LogCapture.start()) {
                nodes.startWith(3, nodes.config(3).join(nodes.urls.get(0)).build()).get(60, TimeUnit.SECONDS)
                        .joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
                assertTrue(log.warningsAndErrors().stream().anyMatch(line -> line.contains("asks to join with " + held + " keys")),
                        log.warningsAndErrors().toString());
            }
            ClusterMap map = nodes.awaitSameMap(10);
            assertEquals(4, map.owners().size());
            for (int node = 0; node < 4; node++) {
                assertEquals(200, nodes.send(node, "POST", "/v0/admin/cleanup", null).statusCode());
            }
            Set<String> rejoined = localKeys(nodes, 3);
            for (String entry : nodes.localRange(3).split(";")) {
                assertTrue(entry.isEmpty() || entry.contains("\nnew"), "the rejoined node holds only what it was streamed: " + entry);
            }
            for (int i = 0; i < 1000; i++) {
                String key = "k" + i;
                assertEquals(i % 2 == 1 && new OwnedKeys(map, nodes.urls.get(3)).keeps(key.getBytes(StandardCharsets.UTF_8)),
                        rejoined.contains(key), key);
                HttpResponse<String> read = nodes.send(i % 4, "GET", "/v0/entity?id=" + key + "&ack=2&from=2", null);
                assertEquals(i % 2 == 0 ? 404 : 200, read.statusCode(), key);
            }
        }
    }

    @Test
    void removingADeadNodeRebuildsItsReplicasFromTheSurvivors() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 4, 3, b -> b).startSeeds()) {
            for (int i = 0; i < 2000; i++) {
                assertEquals(201, nodes.send(i % 4, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=3", "v" + i).statusCode());
            }
            HttpResponse<String> alive = nodes.send(0, "DELETE", "/v0/admin/nodes?url=" + nodes.urls.get(2), null);
            assertEquals(409, alive.statusCode(), "a node that answers is decommissioned, not removed: " + alive.body());
            nodes.stop(2);
            HttpResponse<String> answer = nodes.send(3, "DELETE", "/v0/admin/nodes?url=" + nodes.urls.get(2), null);
            assertEquals(200, answer.statusCode(), answer.body());
            ClusterMap map = nodes.awaitSameMap(10);
            assertEquals(List.of(nodes.urls.get(0), nodes.urls.get(1), nodes.urls.get(3)), map.urls());
            // Every survivor holds every key again (RF 3 on 3 nodes), so one node down still leaves a quorum.
            nodes.stop(0);
            for (int i = 0; i < 2000; i++) {
                int node = i % 2 == 0 ? 1 : 3;
                assertEquals("v" + i, nodes.send(node, "GET", "/v0/entity?id=k" + i + "&ack=2&from=3", null).body(), "k" + i);
            }
        }
    }

    /**
     * Under modn removing a node gives many keys two new replicas at once. While they are streamed
     * their data, quorum reads stay on the old replicas: an acknowledged write reads back, or the read
     * fails (504, one old replica is dead), but never answers 404 from two replicas that have nothing yet.
     */
    @Test
    void whileADeadNodeIsRemovedNoQuorumReadMissesAnAcknowledgedWrite() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 5, 5, 2,
                b -> b.partitioner("modn").streamBatchBytes(256 << 10).streamBytesPerSecond(20_000)).startSeeds()) {
            String value = "v".repeat(300);
            int keys = 600;
            for (int i = 0; i < keys; i++) {
                assertEquals(201, nodes.send(i % 5, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", value + i).statusCode());
            }
            nodes.stop(4);
            CompletableFuture<HttpResponse<String>> removal = CompletableFuture.supplyAsync(() -> {
                try {
                    return nodes.send(0, "DELETE", "/v0/admin/nodes?url=" + nodes.urls.get(4), null);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            int passes = 0;
            int found = 0;
            List<String> missed = new ArrayList<>();
            while (!removal.isDone()) {
                for (int i = 0; i < keys && !removal.isDone(); i++) {
                    HttpResponse<String> read = nodes.send(1 + i % 3, "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null);
                    if (read.statusCode() == 404) {
                        missed.add("k" + i);
                    }
                    found += read.statusCode() == 200 ? 1 : 0;
                }
                passes += removal.isDone() ? 0 : 1;
            }
            HttpResponse<String> answer = removal.get(60, TimeUnit.SECONDS);
            assertEquals(200, answer.statusCode(), answer.body());
            assertTrue(passes > 0, "a whole pass of reads ran while the removal was in progress");
            assertTrue(found > 0, "quorum reads found keys during the removal");
            assertEquals(List.of(), missed, "quorum reads that answered 404 for an acknowledged write during the removal");
            ClusterMap map = nodes.awaitSameMap(10);
            assertEquals(4, map.owners().size());
            for (int i = 0; i < keys; i++) {
                assertEquals(value + i, nodes.send(i % 4, "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null).body(), "k" + i);
            }
        }
    }

    @Test
    void badChangesAreRefusedWithTheMapUnchanged() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 5, 3, 3, b -> b).startSeeds()) {
            HttpResponse<String> belowRf = nodes.send(2, "POST", "/v0/admin/decommission", null);
            assertEquals(409, belowRf.statusCode(), belowRf.body());
            assertTrue(belowRf.body().contains("replication factor 3"), belowRf.body());
            assertEquals(404, nodes.send(0, "GET", "/v0/admin/cleanup", null).statusCode(), "no cleanup has run here");
            assertEquals(405, nodes.send(0, "PUT", "/v0/admin/cleanup", null).statusCode());
            HttpResponse<String> unknown = nodes.send(1, "DELETE", "/v0/admin/nodes?url=http://127.0.0.1:1", null);
            assertEquals(404, unknown.statusCode(), unknown.body());

            Throwable partitioner = assertThrows(ExecutionException.class, () -> nodes.startWith(3,
                    nodes.config(3).join(nodes.urls.get(1)).partitioner("jump").build()).get(30, TimeUnit.SECONDS)).getCause();
            assertTrue(partitioner.getMessage().contains("--partitioner jump but the cluster uses ring"), partitioner.getMessage());

            Throwable unreachable = assertThrows(ExecutionException.class, () -> nodes.startWith(3,
                    nodes.config(3).join("http://127.0.0.1:" + TestCluster.freePort()).build()).get(30, TimeUnit.SECONDS)).getCause();
            assertTrue(unreachable.getMessage().contains("does not answer"), unreachable.getMessage());

            Throwable member = assertThrows(ExecutionException.class, () -> nodes.startWith(3,
                    nodes.config(3).self(nodes.urls.get(2)).join(nodes.urls.get(0)).build()).get(30, TimeUnit.SECONDS)).getCause();
            assertTrue(member.getMessage().contains("already in its map"), member.getMessage());

            ClusterMap map = nodes.awaitSameMap(5);
            assertEquals(1, map.epoch(), "no refused change moved the map");
            assertNull(map.state(nodes.urls.get(3)));
        }
    }

    @Test
    void aJoinWhoseSourceIsDownAbortsAndSaysWhy() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 3, 2,
                b -> b.streamUnreachableTimeout(Duration.ofSeconds(2))).startSeeds()) {
            nodes.stop(2);
            nodes.start(3);
            Throwable failure = assertThrows(ExecutionException.class,
                    () -> nodes.node(3).joined().toCompletableFuture().get(60, TimeUnit.SECONDS)).getCause();
            assertTrue(failure.getMessage().contains(nodes.urls.get(2)) && failure.getMessage().contains("unreachable"),
                    failure.getMessage());
            ClusterMap map = nodes.map(0);
            assertNull(map.state(nodes.urls.get(3)), "the newcomer never became normal and left the map: " + map);
            assertEquals(3, map.epoch());
        }
    }

    @Test
    void everyNodeKeepsTheNewMapAcrossARestart() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 3, 2, b -> b).startSeeds()) {
            nodes.start(3);
            nodes.node(3).joined().toCompletableFuture().get(30, TimeUnit.SECONDS);
            ClusterMap grown = nodes.awaitSameMap(10);
            for (int i = 0; i < 4; i++) {
                nodes.stop(i);
            }
            for (int i = 0; i < 4; i++) {
                nodes.start(i);
            }
            assertEquals(grown, nodes.awaitSameMap(10), "the seeds' --cluster lists only three; the kept map wins");
            assertEquals(4, grown.members().size());
        }
    }
}
