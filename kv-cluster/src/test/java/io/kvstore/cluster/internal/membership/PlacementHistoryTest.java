package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PlacementHistoryTest {
    private static final List<String> NODES = List.of("http://a:1", "http://b:1", "http://c:1", "http://d:1");

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** The nodes a write of {@code key} goes to under {@code map}, computed independently of the history. */
    private static Set<String> writeSet(ClusterMap map, byte[] key) {
        Set<String> nodes = new HashSet<>();
        addReplicas(nodes, map.placement(), key, map.replicationFactor());
        if (map.inTransition()) {
            addReplicas(nodes, map.futurePlacement(), key, map.replicationFactor());
        }
        return nodes;
    }

    private static void addReplicas(Set<String> nodes, Partitioner placement, byte[] key, int replicationFactor) {
        for (int node : placement.replicas(key, replicationFactor)) {
            nodes.add(placement.nodes().get(node));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ring", "rendezvous", "jump", "modn", "maglev"})
    void aKeyIsRefusedExactlyWhenItsWriteSetChangedSinceTheRequestsEpoch(String partitioner) {
        ClusterMap settled = ClusterMap.seed(NODES, 2, partitioner, 16);
        ClusterMap leaving = settled.withState(NODES.get(3), NodeState.LEAVING);
        ClusterMap gone = leaving.without(NODES.get(3));
        PlacementHistory history = new PlacementHistory();
        history.add(settled);
        history.add(leaving);
        history.add(gone);
        int moved = 0;
        int kept = 0;
        for (int i = 0; i < 2000; i++) {
            byte[] key = key(i);
            boolean movedSinceSettled = !writeSet(settled, key).equals(writeSet(gone, key));
            assertEquals(movedSinceSettled ? gone.epoch() : -1, history.movedSince(settled.epoch(), key), "key " + i);
            boolean movedSinceLeaving = !writeSet(leaving, key).equals(writeSet(gone, key));
            assertEquals(movedSinceLeaving ? gone.epoch() : -1, history.movedSince(leaving.epoch(), key), "key " + i);
            assertEquals(-1, history.movedSince(gone.epoch(), key), "the node's own epoch");
            assertEquals(-1, history.movedSince(gone.epoch() + 7, key), "a newer epoch is caught up with, not refused");
            if (movedSinceSettled) {
                moved++;
            } else {
                kept++;
            }
        }
        assertTrue(moved > 0 && kept > 0, "both kinds of keys: " + moved + " moved, " + kept + " kept");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void anEpochTheNodeNeverHeldOrHasForgottenRefusesEveryKey(int unknown) {
        PlacementHistory history = new PlacementHistory();
        ClusterMap map = ClusterMap.seed(NODES, 2, "ring", 16);
        for (int i = 0; i < PlacementHistory.KEPT + 3; i++) {
            map = map.withState(NODES.get(3), i % 2 == 0 ? NodeState.LEAVING : NodeState.NORMAL);
            history.add(map);
        }
        long forgotten = map.epoch() - PlacementHistory.KEPT;
        long epoch = unknown == 0 ? 0 : forgotten;
        for (int i = 0; i < 100; i++) {
            assertEquals(map.epoch(), history.movedSince(epoch, key(i)), "epoch " + epoch + ", key " + i);
        }
    }

    @Test
    void anEmptyHistoryRefusesNothing() {
        assertEquals(-1, new PlacementHistory().movedSince(1, key(0)));
    }
}
