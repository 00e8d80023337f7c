package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.internal.membership.OwnedKeys;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.testing.Seeds;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decommission, removal and join of real nodes under every partitioner, with a replication factor
 * below the node count and writers at quorum during each change. After each change and the cleanups
 * it asks for, every acknowledged write is readable at quorum and held by every one of its owners,
 * and no node holds a key it does not own.
 *
 * <p>The whole matrix (every partitioner, RF 2 and 3 of 5) takes minutes, so a default run draws one
 * case from a printed seed; {@code -Dkv.placementCases=all} runs them all (the slow tier's
 * {@code .ci/matrix}), {@code -Dkv.placementCases=modn/2} one of them.
 */
@Tag("slow")
class PlacementChangeTest {
    private static final int NODES = 5;
    private static final int PRELOADED = 2000;

    @TempDir
    Path dir;

    static List<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (String partitioner : Partitioners.names()) {
            for (int replicationFactor : new int[] {2, 3}) {
                all.add(Arguments.of(partitioner, replicationFactor));
            }
        }
        String chosen = System.getProperty("kv.placementCases", "");
        if (chosen.equals("all")) {
            return all;
        }
        if (!chosen.isEmpty()) {
            String[] parts = chosen.split("/");
            return List.of(Arguments.of(parts[0], Integer.parseInt(parts[1])));
        }
        Random random = new Random(Seeds.seed("PlacementChangeTest"));
        return List.of(all.get(random.nextInt(all.size())));
    }

    @ParameterizedTest(name = "{0}, RF {1} of 5")
    @MethodSource("cases")
    void decommissionRemovalAndJoinKeepEveryAcknowledgedWriteOnItsOwners(String partitioner, int replicationFactor)
            throws Exception {
        String quorum = "ack=" + (replicationFactor / 2 + 1) + "&from=" + replicationFactor;
        Map<String, String> acknowledged = new ConcurrentHashMap<>();
        try (MembershipNodes nodes = new MembershipNodes(dir, NODES + 1, NODES, replicationFactor,
                b -> b.partitioner(partitioner)).startSeeds()) {
            for (int i = 0; i < PRELOADED; i++) {
                String key = "pre-" + i;
                String value = "p" + i + ";";
                assertEquals(201, nodes.send(i % NODES, "PUT", "/v0/entity?id=" + key + "&" + quorum, value).statusCode(), key);
                acknowledged.put(key, value);
            }

            List<Integer> staying = List.of(0, 1, 3, 4);
            try (Writers writers = new Writers(nodes, staying, quorum, "decommission", acknowledged)) {
                HttpResponse<String> answer = nodes.send(2, "POST", "/v0/admin/decommission", null);
                assertEquals(200, answer.statusCode(), answer.body());
                assertTrue(answer.body().contains("\"status\":\"done\""), answer.body());
            }
            nodes.stop(2);
            checkPlacement(nodes, staying, acknowledged, "after the decommission");

            List<Integer> surviving = List.of(0, 1, 3);
            nodes.stop(4);
            try (Writers writers = new Writers(nodes, surviving, quorum, "removal", acknowledged)) {
                HttpResponse<String> answer = nodes.send(1, "DELETE", "/v0/admin/nodes?url=" + nodes.urls.get(4), null);
                assertEquals(200, answer.statusCode(), answer.body());
            }
            checkPlacement(nodes, surviving, acknowledged, "after the removal");

            try (Writers writers = new Writers(nodes, surviving, quorum, "join", acknowledged)) {
                nodes.start(NODES);
                nodes.node(NODES).joined().toCompletableFuture().get(120, TimeUnit.SECONDS);
            }
            checkPlacement(nodes, List.of(0, 1, 3, NODES), acknowledged, "after the join");
        }
    }

    /**
     * Waits for one settled map, cleans up on every node, then checks each node's own keys against the
     * map: it owns every key it holds and holds every acknowledged key it owns; every acknowledged key
     * reads back at quorum.
     */
    static void checkPlacement(MembershipNodes nodes, List<Integer> live, Map<String, String> acknowledged,
                                       String when) throws Exception {
        ClusterMap map = nodes.awaitSameMap(30);
        assertEquals(live.size(), map.owners().size(), when + ": " + map);
        int replicationFactor = map.replicationFactor();
        String quorum = "ack=" + (replicationFactor / 2 + 1) + "&from=" + replicationFactor;
        for (int node : live) {
            HttpResponse<String> cleanup = nodes.send(node, "POST", "/v0/admin/cleanup", null);
            assertEquals(200, cleanup.statusCode(), when + ": " + cleanup.body());
        }
        Map<String, Integer> copies = new HashMap<>();
        Map<String, Set<String>> holders = new HashMap<>();
        for (int node : live) {
            String url = nodes.urls.get(node);
            OwnedKeys owned = new OwnedKeys(map, url);
            Set<String> held = localKeys(nodes, node);
            for (String key : held) {
                holders.computeIfAbsent(key, k -> new HashSet<>()).add(url);
            }
            List<String> strays = new ArrayList<>();
            for (String key : held) {
                if (!owned.keeps(key.getBytes(StandardCharsets.UTF_8))) {
                    strays.add(key);
                }
                copies.merge(key, 1, Integer::sum);
            }
            assertTrue(strays.isEmpty(), when + ": " + url + " holds " + strays.size() + " keys it does not own, e.g. "
                    + strays.subList(0, Math.min(5, strays.size())));
        }
        int lost = 0;
        int belowReplicationFactor = 0;
        List<String> examples = new ArrayList<>();
        for (String key : acknowledged.keySet()) {
            int held = copies.getOrDefault(key, 0);
            if (held < replicationFactor) {
                lost += held == 0 ? 1 : 0;
                belowReplicationFactor++;
                if (examples.size() < 5) {
                    examples.add(key + " on " + holders.getOrDefault(key, Set.of()));
                }
            }
        }
        assertEquals(0, belowReplicationFactor, when + ": of " + acknowledged.size() + " acknowledged keys, "
                + belowReplicationFactor + " are on fewer than " + replicationFactor + " nodes (" + lost
                + " on none), e.g. " + examples);
        int i = 0;
        for (Map.Entry<String, String> entry : acknowledged.entrySet()) {
            int node = live.get(i++ % live.size());
            HttpResponse<String> read = nodes.send(node, "GET", "/v0/entity?id=" + entry.getKey() + "&" + quorum, null);
            assertEquals(200, read.statusCode(), when + ": " + entry.getKey());
            assertEquals(entry.getValue(), read.body(), when + ": " + entry.getKey());
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

    /**
     * One client writing new keys at quorum through the given nodes until closed, recording the writes
     * acknowledged with 201. Refusals and timeouts are expected while a node is dead and are not
     * recorded. The change starts once the first write went through, and more must go through.
     */
    private static final class Writers implements AutoCloseable {
        private final AtomicBoolean writing = new AtomicBoolean(true);
        private final CompletableFuture<Integer> writer;
        private final String phase;
        private final CountDownLatch first = new CountDownLatch(1);

        Writers(MembershipNodes nodes, List<Integer> through, String quorum, String phase, Map<String, String> acknowledged)
                throws InterruptedException {
            this.phase = phase;
            this.writer = CompletableFuture.supplyAsync(() -> {
                Random random = new Random(phase.hashCode());
                int written = 0;
                for (int i = 0; writing.get(); i++) {
                    String key = phase + "-" + i;
                    String value = "w" + i + ";";
                    try {
                        int node = through.get(random.nextInt(through.size()));
                        if (nodes.send(node, "PUT", "/v0/entity?id=" + key + "&" + quorum, value).statusCode() == 201) {
                            acknowledged.put(key, value);
                            written++;
                            first.countDown();
                        }
                    } catch (Exception e) {
                        // Not acknowledged: not recorded.
                    }
                }
                return written;
            });
            assertTrue(first.await(60, TimeUnit.SECONDS), "no write went through before the " + phase);
        }

        @Override
        public void close() throws Exception {
            writing.set(false);
            int written = writer.get(120, TimeUnit.SECONDS);
            assertTrue(written > 1, "no write was acknowledged during the " + phase);
        }
    }
}
