package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The partitioner contract for {@code rendezvous}: highest random weight: balanced up to sampling noise. */
class RendezvousPartitionerTest extends PartitionerContractTest {

    @Override
    String algorithm() {
        return "rendezvous";
    }

    @Override
    Map<String, int[]> golden() {
        return Map.ofEntries(
                Map.entry("", new int[] {2, 4, 1}),
                Map.entry("a", new int[] {3, 1, 4}),
                Map.entry("1", new int[] {4, 0, 3}),
                Map.entry("2", new int[] {3, 2, 1}),
                Map.entry("user:42", new int[] {1, 3, 2}),
                Map.entry("hello world", new int[] {3, 4, 0}),
                Map.entry("\u00e9t\u00e9", new int[] {0, 2, 1}),
                Map.entry("key-with-a-length-over-32-bytes-0123456789", new int[] {1, 3, 4}));
    }

    @Override
    double maxPeakToMean() {
        return 1.02;
    }

    @Override
    double[] joinMovementBounds() {
        return new double[] {0.085, 0.098};
    }

    @Override
    boolean movesOnlyToJoiningNode() {
        return true;
    }

    @Test
    void anyNodeMayLeaveNotOnlyTheLast() {
        double moved = movementWhenRemoving(11, 4, true);
        assertTrue(moved >= 0.085 && moved <= 0.098, () -> "moved " + moved);
    }
}
