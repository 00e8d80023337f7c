package io.kvstore.cluster.internal.membership;

import static io.kvstore.cluster.internal.membership.MovementCases.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.cluster.membership.RingTokens;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link KeyMovement#maySend}: a node it clears would have sent no key (checked over many keys), it clears
 * nodes only on the ring, and on a ring larger than the replicas it clears most of them.
 */
class KeyMovementMaySendTest {
    private static final int KEYS = 5_000;

    @ParameterizedTest
    @MethodSource(MovementCases.CHANGES)
    void aNodeClearedOfSendingHasNoKeyToSend(KeyMovement movement) {
        assertSound(movement);
        for (String failed : movement.senders()) {
            assertSound(movement.withoutSources(Set.of(failed)));
        }
    }

    @Test
    void onlyTheRingClearsNodes() {
        for (String partitioner : MovementCases.partitioners()) {
            KeyMovement join = KeyMovement.join(2, MovementCases.seed(MovementCases.FIVE.subList(0, 4), 2, partitioner)
                    .withJoining(MovementCases.FIVE.get(4)), MovementCases.FIVE.get(4));
            if (!partitioner.startsWith("ring")) {
                for (int node = 0; node < join.before().owners().size(); node++) {
                    assertTrue(join.maySend(node), partitioner + ": node " + node);
                }
            }
        }
    }

    @Test
    void onALargeRingFewNodesScan() {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            nodes.add("http://n" + i + ":1");
        }
        for (int rf = 1; rf <= 3; rf++) {
            ClusterMap seed = ClusterMap.seed(nodes.subList(0, 39), rf, "ring", 4, RingTokens.RANDOM);
            KeyMovement join = KeyMovement.join(2, seed.withJoining(nodes.get(39)), nodes.get(39));
            KeyMovement decommission = KeyMovement.decommission(2, seed.withState(nodes.get(7), NodeState.LEAVING), nodes.get(7));
            for (KeyMovement movement : List.of(join, decommission)) {
                int scanning = assertSound(movement);
                // A node's 4 tokens touch at most 4 x RF arcs' preference lists on each side.
                assertTrue(scanning <= 4 * rf + 4, "RF " + rf + ": " + scanning + " of 39 scan");
                assertTrue(scanning >= 1, "RF " + rf + ": someone sends");
            }
        }
    }

    @Test
    void aDeadOrFailedSourceOrAStrangerSendsNothing() {
        ClusterMap seed = MovementCases.seed(MovementCases.FIVE, 3, "ring");
        String dies = MovementCases.FIVE.get(2);
        ClusterMap leaving = seed.withState(dies, NodeState.LEAVING);
        KeyMovement removal = KeyMovement.removal(2, leaving, leaving.without(dies));
        assertFalse(removal.maySend(removal.indexOf(dies)));
        assertFalse(removal.maySend(-1));
        KeyMovement failover = removal.withoutSources(Set.of(MovementCases.FIVE.get(0)));
        assertFalse(failover.maySend(failover.indexOf(MovementCases.FIVE.get(0))));
    }

    /** Asserts that every node {@code movement} clears sends no key; returns how many it does not clear. */
    private static int assertSound(KeyMovement movement) {
        int owners = movement.before().owners().size();
        int rf = Math.max(movement.before().replicationFactor(), movement.after().replicationFactor());
        int[] out = new int[rf];
        int[] scratchB = new int[rf];
        int[] scratchA = new int[rf];
        int notCleared = 0;
        for (int node = 0; node < owners; node++) {
            if (movement.maySend(node)) {
                notCleared++;
                continue;
            }
            for (int k = 0; k < KEYS; k++) {
                assertEquals(0, movement.targets(key(k), node, out, scratchB, scratchA),
                        "node " + node + " was cleared but sends key" + k + " in " + movement.streamName());
            }
        }
        return notCleared;
    }
}
