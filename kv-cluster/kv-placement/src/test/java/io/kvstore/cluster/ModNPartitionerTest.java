package io.kvstore.cluster;

import java.util.Map;

/** The partitioner contract for {@code modn}: hash mod N: balanced up to sampling noise, but nearly every key moves. */
class ModNPartitionerTest extends PartitionerContractTest {

    @Override
    String algorithm() {
        return "modn";
    }

    @Override
    Map<String, int[]> golden() {
        return Map.ofEntries(
                Map.entry("", new int[] {1, 2, 3}),
                Map.entry("a", new int[] {0, 1, 2}),
                Map.entry("1", new int[] {0, 1, 2}),
                Map.entry("2", new int[] {1, 2, 3}),
                Map.entry("user:42", new int[] {1, 2, 3}),
                Map.entry("hello world", new int[] {2, 3, 4}),
                Map.entry("\u00e9t\u00e9", new int[] {4, 0, 1}),
                Map.entry("key-with-a-length-over-32-bytes-0123456789", new int[] {1, 2, 3}));
    }

    @Override
    double maxPeakToMean() {
        return 1.02;
    }

    @Override
    double[] joinMovementBounds() {
        return new double[] {0.88, 0.94};
    }

    @Override
    boolean movesOnlyToJoiningNode() {
        return false;
    }
}
