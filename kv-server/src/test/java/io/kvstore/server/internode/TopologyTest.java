package io.kvstore.server.internode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Quorum;
import io.kvstore.cluster.Replica;
import io.kvstore.cluster.ReplicaCoordinator;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.core.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopologyTest {
    private static final List<String> NODES = List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4");

    /** A replica that stores nothing and tells which node each key reached. */
    private static final class Recording implements Replica {
        private final String node;
        private final ConcurrentHashMap<String, Set<String>> reached;

        Recording(String node, ConcurrentHashMap<String, Set<String>> reached) {
            this.node = node;
            this.reached = reached;
        }

        @Override
        public CompletionStage<Entry> get(byte[] key) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> upsert(Entry entry) {
            reached.computeIfAbsent(new String(entry.key(), StandardCharsets.UTF_8), k -> ConcurrentHashMap.newKeySet()).add(node);
            return CompletableFuture.completedFuture(null);
        }
    }

    private static Set<String> first(Partitioner placement, byte[] key, int count) {
        Set<String> nodes = new HashSet<>();
        for (int replica : placement.replicas(key, count)) {
            nodes.add(placement.nodes().get(replica));
        }
        return nodes;
    }

    /**
     * While a node joins (modn moves most keys), a write at any {@code from} reaches exactly the key's
     * first {@code from} current replicas and its first {@code from} future ones: a write at
     * {@code from} below the replication factor still lands on the replica that will serve it.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void aWriteDuringAChangeReachesItsFirstFromCurrentAndFutureReplicas(int from) throws Exception {
        ClusterMap joining = ClusterMap.seed(NODES.subList(0, 3), 3, "modn", 16).withJoining(NODES.get(3));
        ConcurrentHashMap<String, Set<String>> reached = new ConcurrentHashMap<>();
        Partitioner current = joining.placement();
        List<Replica> currentReplicas = new ArrayList<>();
        for (String node : current.nodes()) {
            currentReplicas.add(new Recording(node, reached));
        }
        List<Replica> futureReplicas = new ArrayList<>();
        for (String node : joining.futureOwners()) {
            futureReplicas.add(new Recording(node, reached));
        }
        HybridClock clock = new HybridClock();
        ReplicaCoordinator coordinator = new ReplicaCoordinator(current, currentReplicas, clock, Duration.ofSeconds(5));
        Topology topology = new Topology(joining, coordinator, null, clock, futureReplicas);
        Quorum quorum = Quorum.of(1, from, current.nodes().size());
        int movedPrimaries = 0;
        for (int k = 0; k < 500; k++) {
            String key = "key" + k;
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            topology.put(bytes, new byte[] {1}, quorum).toCompletableFuture().get(5, TimeUnit.SECONDS);
            Set<String> expected = first(current, bytes, from);
            Set<String> future = first(joining.futurePlacement(), bytes, from);
            expected.addAll(future);
            assertEquals(expected, reached.get(key), key + " at from=" + from);
            movedPrimaries += first(current, bytes, 1).equals(first(joining.futurePlacement(), bytes, 1)) ? 0 : 1;
        }
        assertTrue(movedPrimaries > 100, "the join moves primaries: " + movedPrimaries);
        assertEquals(NodeState.JOINING, joining.state(NODES.get(3)));
    }
}
