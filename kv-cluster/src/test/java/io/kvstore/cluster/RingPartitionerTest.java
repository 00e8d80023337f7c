package io.kvstore.cluster;

import java.util.Map;

/** The partitioner contract for {@code ring}: consistent hashing with 256 virtual nodes: each node's share varies by about 1/sqrt(256). */
class RingPartitionerTest extends PartitionerContractTest {

    @Override
    String algorithm() {
        return "ring";
    }

    @Override
    Map<String, int[]> golden() {
        return Map.ofEntries(
                Map.entry("", new int[] {3, 0, 2}),
                Map.entry("a", new int[] {1, 4, 3}),
                Map.entry("1", new int[] {4, 1, 0}),
                Map.entry("2", new int[] {4, 3, 1}),
                Map.entry("user:42", new int[] {0, 3, 2}),
                Map.entry("hello world", new int[] {4, 0, 1}),
                Map.entry("\u00e9t\u00e9", new int[] {0, 1, 2}),
                Map.entry("key-with-a-length-over-32-bytes-0123456789", new int[] {0, 2, 4}));
    }

    @Override
    double maxPeakToMean() {
        return 1.25;
    }

    @Override
    double[] joinMovementBounds() {
        return new double[] {0.05, 0.14};
    }

    @Override
    boolean movesOnlyToJoiningNode() {
        return true;
    }
}
