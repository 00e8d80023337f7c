package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.core.Entry;
import io.kvstore.server.wire.BatchCodec;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Internal requests fenced by map epoch: a replica on a newer map refuses (421, with its epoch) a
 * request whose older map sends the key to other replicas, and a coordinator on the older map retries
 * on the newer one, so that a write reaches the replicas the newer map names.
 */
class EpochFencingTest {
    private static final int KEYS = 200;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return ("fenced-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** The nodes a write of {@code key} goes to under {@code map}: its RF owners and, in a change, its RF future owners. */
    private static Set<String> writeSet(ClusterMap map, byte[] key) {
        Set<String> nodes = new HashSet<>();
        add(nodes, map.placement(), key, map.replicationFactor());
        if (map.inTransition()) {
            add(nodes, map.futurePlacement(), key, map.replicationFactor());
        }
        return nodes;
    }

    private static void add(Set<String> nodes, Partitioner placement, byte[] key, int replicationFactor) {
        for (int node : placement.replicas(key, replicationFactor)) {
            nodes.add(placement.nodes().get(node));
        }
    }

    /** Gives node {@code node} the map {@code map} as the claimant would push it. */
    private static void push(MembershipNodes nodes, int node, ClusterMap map) throws Exception {
        assertEquals(204, nodes.http.send(HttpRequest.newBuilder(URI.create(nodes.urls.get(node) + Routes.MAP))
                .PUT(HttpRequest.BodyPublishers.ofString(ClusterMapCodec.toJson(map)))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    private static HttpResponse<String> internalPut(MembershipNodes nodes, int node, byte[] key, String epoch)
            throws Exception {
        Entry entry = Entry.value(key, "v".getBytes(StandardCharsets.UTF_8), System.currentTimeMillis() << 16, Entry.NEVER);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(nodes.urls.get(node) + InternalCodec.writeUri(entry)))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(entry.value())).timeout(Duration.ofSeconds(10));
        if (epoch != null) {
            request.header(Headers.EPOCH, epoch).header(Headers.NODE, nodes.urls.get(0));
        }
        return nodes.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Reads node {@code node}'s own version of {@code key}; with no epoch, unfenced. */
    private static HttpResponse<String> internalGet(MembershipNodes nodes, int node, byte[] key, String epoch) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(nodes.urls.get(node) + InternalCodec.readUri(key)))
                .timeout(Duration.ofSeconds(10));
        if (epoch != null) {
            request.header(Headers.EPOCH, epoch);
        }
        return nodes.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> internalWrites(MembershipNodes nodes, int node, List<byte[]> keys, String epoch)
            throws Exception {
        List<Entry> entries = new ArrayList<>();
        for (byte[] key : keys) {
            entries.add(Entry.value(key, "w".getBytes(StandardCharsets.UTF_8), System.currentTimeMillis() << 16, Entry.NEVER));
        }
        return nodes.http.send(HttpRequest.newBuilder(URI.create(nodes.urls.get(node) + Routes.WRITES))
                .header(Headers.EPOCH, epoch)
                .POST(HttpRequest.BodyPublishers.ofByteArray(BatchCodec.writesBody(entries).getBytes()))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aReplicaOnANewerMapRefusesAnOlderMapsRequestsForTheKeysItMovedAndServesTheRest() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 2, b -> b)) {
            nodes.startSeeds();
            ClusterMap settled = nodes.map(0);
            ClusterMap leaving = settled.withState(nodes.urls.get(2), NodeState.LEAVING);
            push(nodes, 1, leaving);
            String old = Long.toString(settled.epoch());
            String current = Long.toString(leaving.epoch());
            List<byte[]> moved = new ArrayList<>();
            List<byte[]> kept = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                byte[] key = key(i);
                (writeSet(settled, key).equals(writeSet(leaving, key)) ? kept : moved).add(key);
            }
            assertTrue(moved.size() > 10 && kept.size() > 10, moved.size() + " moved, " + kept.size() + " kept");

            for (byte[] key : moved) {
                HttpResponse<String> refused = internalPut(nodes, 1, key, old);
                assertEquals(421, refused.statusCode(), refused.body());
                assertEquals(current, refused.headers().firstValue(Headers.EPOCH).orElse(null));
                assertTrue(refused.body().contains("epoch " + current), refused.body());
                assertEquals(421, internalGet(nodes, 1, key, old).statusCode(), "a read is fenced too");
                assertEquals(201, internalPut(nodes, 1, key, current).statusCode(), "the same epoch");
                assertEquals(201, internalPut(nodes, 1, key, null).statusCode(), "a sender without epochs is served as before");
            }
            for (byte[] key : kept) {
                HttpResponse<String> served = internalPut(nodes, 1, key, old);
                assertEquals(201, served.statusCode(), served.body());
                assertEquals(current, served.headers().firstValue(Headers.EPOCH).orElse(null), "answers carry the epoch");
            }
            assertEquals(200, internalWrites(nodes, 1, kept, old).statusCode(), "a batch of kept keys");
            List<byte[]> mixed = new ArrayList<>(kept.subList(0, 5));
            mixed.add(moved.get(0));
            HttpResponse<String> batch = internalWrites(nodes, 1, mixed, old);
            assertEquals(421, batch.statusCode(), "one moved key refuses its batch: " + batch.body());
            assertEquals(current, batch.headers().firstValue(Headers.EPOCH).orElse(null));
            assertEquals(421, internalPut(nodes, 1, kept.get(0), "0").statusCode(), "an epoch the node never held");
            for (String malformed : List.of("+" + old, "-1", "0x1", "1e3", "99999999999999999999")) {
                HttpResponse<String> bad = internalPut(nodes, 1, kept.get(0), malformed);
                assertEquals(400, bad.statusCode(), "epoch '" + malformed + "': " + bad.body());
                assertTrue(bad.body().contains(Headers.EPOCH), bad.body());
            }

            // A request of an epoch the node has not reached waits for it, then is served as before.
            long start = System.nanoTime();
            assertEquals(201, internalPut(nodes, 1, moved.get(0), Long.toString(leaving.epoch() + 5)).statusCode());
            assertTrue(System.nanoTime() - start >= Duration.ofMillis(900).toNanos(), "waited to catch up first");
        }
    }

    @Test
    void aCoordinatorOnAnOlderMapRetriesOnTheNewerOneSoThatItsWritesReachThePendingReplicas() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 2, b -> b)) {
            nodes.startSeeds();
            ClusterMap settled = nodes.map(0);
            // Nodes 1 and 2 learn that node 2 leaves; node 0, the coordinator, missed it.
            ClusterMap leaving = settled.withState(nodes.urls.get(2), NodeState.LEAVING);
            push(nodes, 1, leaving);
            push(nodes, 2, leaving);
            List<CompletableFuture<HttpResponse<String>>> writes = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                writes.add(nodes.http.sendAsync(HttpRequest.newBuilder(URI.create(nodes.urls.get(0) + "/v0/entity?id=fenced-" + i
                                + "&ack=2&from=2")).PUT(HttpRequest.BodyPublishers.ofString(value(i)))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < KEYS; i++) {
                HttpResponse<String> answer = writes.get(i).join();
                assertEquals(201, answer.statusCode(), "fenced-" + i + ": " + answer.body());
            }
            assertEquals(leaving.epoch(), nodes.map(0).epoch(), "the coordinator took the newer map");

            // Every write is on every node its key's write set names under the newer map: the pending ones too.
            int onPending = 0;
            for (int i = 0; i < KEYS; i++) {
                Set<String> targets = writeSet(leaving, key(i));
                Set<String> before = writeSet(settled, key(i));
                for (int node = 0; node < 3; node++) {
                    if (targets.contains(nodes.urls.get(node))) {
                        HttpResponse<String> stored = internalGet(nodes, node, key(i), null);
                        assertEquals(value(i), stored.body(), "fenced-" + i + " on node " + node + ", one of " + targets
                                + " (" + stored.statusCode() + ")");
                        if (!before.contains(nodes.urls.get(node))) {
                            onPending++;
                        }
                    }
                }
            }
            assertTrue(onPending > 10, "writes that only the newer map sends to a pending replica: " + onPending);
            PrometheusText metrics = PrometheusText.parse(nodes.send(0, "GET", "/metrics", null).body());
            assertTrue(metrics.value("kv_coordinator_stale_epoch_retries_total") >= 1, "some writes were retried");
        }
    }

    private static String value(int i) {
        return "fenced-value-" + i + "-end";
    }
}
