package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.cluster.membership.RingTokens;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class KeyMovementTest {
    private static final List<String> FIVE = List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4", "http://e:5");

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

    /** Every partitioner with a replication factor below the node count: RF 2 and 3 of 5. */
    static List<Arguments> partitionersAndFactors() {
        List<Arguments> cases = new ArrayList<>();
        for (String partitioner : partitioners()) {
            cases.add(Arguments.of(partitioner, 2));
            cases.add(Arguments.of(partitioner, 3));
        }
        return cases;
    }

    /**
     * After a join, for every key, the set of holders (replicas after the change that either were
     * replicas before or receive the key) is exactly the replica set after the change, and every
     * receiver got it from a node the change asks to stream and that stops being a replica.
     */
    @ParameterizedTest
    @MethodSource("partitionersAndFactors")
    void aJoinHandsEveryMovedKeyToItsNewReplicas(String partitioner, int replicationFactor) {
        ClusterMap joining = seed(FIVE.subList(0, 4), replicationFactor, partitioner).withJoining(FIVE.get(4));
        checkMovement(KeyMovement.join(2, joining, FIVE.get(4)), false);
    }

    @ParameterizedTest
    @MethodSource("partitionersAndFactors")
    void aDecommissionHandsOnEveryKeyAnyOwnerLoses(String partitioner, int replicationFactor) {
        for (String leaves : List.of(FIVE.get(0), FIVE.get(2), FIVE.get(4))) {
            ClusterMap leaving = seed(FIVE, replicationFactor, partitioner).withState(leaves, NodeState.LEAVING);
            checkMovement(KeyMovement.decommission(2, leaving, leaves), false);
        }
    }

    @ParameterizedTest
    @MethodSource("partitionersAndFactors")
    void aRemovalHasEverySurvivorSend(String partitioner, int replicationFactor) {
        ClusterMap five = seed(FIVE, replicationFactor, partitioner);
        KeyMovement removal = KeyMovement.removal(2, five, five.without(FIVE.get(2)));
        assertFalse(removal.senders().contains(FIVE.get(2)), "the removed node is dead");
        checkMovement(removal, true);
    }

    /**
     * Why a decommission asks every owner: under modn and jump the nodes that stay hand keys to each
     * other, which the leaving node never held. A change that asked only the leaving node would leave
     * those keys below their replication factor.
     */
    @ParameterizedTest
    @ValueSource(strings = {"modn", "jump"})
    void underModnAndJumpTheNodesThatStayLoseKeysOnADecommission(String partitioner) {
        ClusterMap leaving = seed(FIVE, 2, partitioner).withState(FIVE.get(2), NodeState.LEAVING);
        KeyMovement movement = KeyMovement.decommission(2, leaving, FIVE.get(2));
        assertEquals(leaving.owners(), movement.senders());
        int[] out = new int[4];
        int[] sb = new int[4];
        int[] sa = new int[4];
        int sentByStayers = 0;
        for (int k = 0; k < 2000; k++) {
            byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
            for (String sender : movement.senders()) {
                if (!sender.equals(FIVE.get(2))) {
                    sentByStayers += movement.targets(key, movement.indexOf(sender), out, sb, sa);
                }
            }
        }
        assertTrue(sentByStayers > 200, "copies sent between nodes that stay: " + sentByStayers);
    }

    private static void checkMovement(KeyMovement movement, boolean survivors) {
        var before = movement.before().placement();
        var after = movement.after().placement();
        int rfB = movement.before().replicationFactor();
        int rfA = movement.after().replicationFactor();
        int[] out = new int[4];
        int[] sb = new int[4];
        int[] sa = new int[4];
        int moved = 0;
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
            // Only the nodes the change asks to stream send anything: no other node is ever asked.
            for (String source : movement.senders()) {
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
            assertEquals(gained, received, "key" + k + " before " + was + " after " + will);
            moved += gained.size();
        }
        assertTrue(moved > 0, "the change moves some keys");
    }
}
