package io.kvstore.cluster.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class KeyMovementTest {
    private static final List<String> THREE = List.of("http://a:1", "http://b:2", "http://c:3");

    /** Every partitioner, and the ring with allocated tokens as "ring allocated". */
    static List<String> partitioners() {
        List<String> names = new ArrayList<>(Partitioners.names());
        names.add("ring allocated");
        return names;
    }

    private static ClusterMap seed(List<String> nodes, int replicationFactor, String partitioner) {
        String[] parts = partitioner.split(" ");
        RingTokens tokens = parts.length > 1 ? RingTokens.parse(parts[1]) : RingTokens.RANDOM;
        return ClusterMap.seed(nodes, replicationFactor, parts[0], 16, tokens);
    }

    /**
     * After a join, for every key, the set of holders (replicas after the change that either were
     * replicas before or receive the key) is exactly the replica set after the change, and every
     * receiver got it from a node that stops being a replica.
     */
    @ParameterizedTest
    @MethodSource("partitioners")
    void aJoinHandsEveryMovedKeyToItsNewReplicas(String partitioner) {
        ClusterMap joining = seed(THREE, 2, partitioner).withJoining("http://d:4");
        ClusterMap after = joining.withState("http://d:4", NodeState.NORMAL);
        checkMovement(new KeyMovement(2, joining, after, false), false);
    }

    @ParameterizedTest
    @MethodSource("partitioners")
    void aDecommissionHandsEveryKeyOfTheLeavingNodeOn(String partitioner) {
        ClusterMap four = seed(List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4"), 2, partitioner);
        ClusterMap leaving = four.withState("http://b:2", NodeState.LEAVING);
        checkMovement(new KeyMovement(2, leaving, leaving.without("http://b:2"), false), false);
    }

    @ParameterizedTest
    @MethodSource("partitioners")
    void aRemovalHasEverySurvivorSend(String partitioner) {
        ClusterMap four = seed(List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4"), 3, partitioner);
        checkMovement(new KeyMovement(2, four, four.without("http://c:3"), true), true);
    }

    private static void checkMovement(KeyMovement movement, boolean survivors) {
        var before = movement.before().placement();
        var after = movement.after().placement();
        int rfB = movement.before().replicationFactor();
        int rfA = movement.after().replicationFactor();
        int[] out = new int[4];
        int[] sb = new int[4];
        int[] sa = new int[4];
        for (int k = 0; k < 2000; k++) {
            byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
            Set<String> was = new HashSet<>();
            for (int r : before.replicas(key, rfB)) {
                was.add(before.nodes().get(r));
            }
            Set<String> will = new HashSet<>();
            for (int r : after.replicas(key, rfA)) {
                will.add(after.nodes().get(r));
            }
            Set<String> received = new HashSet<>();
            for (String source : before.nodes()) {
                int n = movement.targets(key, movement.indexOf(source), out, sb, sa);
                if (n > 0) {
                    assertTrue(was.contains(source), "only replicas send");
                    assertTrue(survivors || !will.contains(source), "only nodes that lose the key send");
                    assertTrue(!survivors || movement.after().contains(source), "a removed node sends nothing");
                }
                for (int i = 0; i < n; i++) {
                    received.add(after.nodes().get(out[i]));
                }
            }
            Set<String> gained = new HashSet<>(will);
            gained.removeAll(was);
            assertEquals(gained, received, "key" + k);
        }
    }
}
