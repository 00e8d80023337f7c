package io.kvstore.cluster;

import java.util.Map;

/** The partitioner contract for {@code jump}: jump consistent hash: balanced up to sampling noise, minimal movement. */
class JumpPartitionerTest extends PartitionerContractTest {

    @Override
    String algorithm() {
        return "jump";
    }

    @Override
    Map<String, int[]> golden() {
        return Map.ofEntries(
                Map.entry("", new int[] {2, 3, 4}),
                Map.entry("a", new int[] {1, 4, 2}),
                Map.entry("1", new int[] {2, 0, 1}),
                Map.entry("2", new int[] {3, 2, 4}),
                Map.entry("user:42", new int[] {4, 2, 3}),
                Map.entry("hello world", new int[] {2, 1, 4}),
                Map.entry("\u00e9t\u00e9", new int[] {0, 2, 4}),
                Map.entry("key-with-a-length-over-32-bytes-0123456789", new int[] {2, 4, 1}));
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
}
