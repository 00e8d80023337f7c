package io.kvstore.cluster;

import java.util.List;
import java.util.Map;

/**
 * The partitioner contract for the {@code ring} over allocated tokens: 16 per node, allocated for RF 1
 * (the contract measures the balance of first replicas) as the nodes join in list order, so a cluster
 * of {@code n + 1} nodes keeps the tokens of the first {@code n}. {@code TokenAllocatorTest} checks the
 * balance for higher replication factors.
 */
class AllocatedRingPartitionerTest extends PartitionerContractTest {

    @Override
    String algorithm() {
        return "ring";
    }

    @Override
    Partitioner create(List<String> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            return Partitioners.ring(nodes, List.of());
        }
        return Partitioners.ring(nodes, TokenAllocator.allocateAll(nodes.size(), 16, 1));
    }

    @Override
    Map<String, int[]> golden() {
        return Map.ofEntries(
                Map.entry("", new int[] {0, 3, 1}),
                Map.entry("a", new int[] {4, 1, 3}),
                Map.entry("1", new int[] {3, 2, 1}),
                Map.entry("2", new int[] {4, 2, 0}),
                Map.entry("user:42", new int[] {0, 3, 1}),
                Map.entry("hello world", new int[] {2, 3, 0}),
                Map.entry("\u00e9t\u00e9", new int[] {0, 3, 1}),
                Map.entry("key-with-a-length-over-32-bytes-0123456789", new int[] {0, 4, 1}));
    }

    /** Allocation for RF 1 evens out first replicas closely, but not second and third ones, which this bound also covers. */
    @Override
    double maxPeakToMean() {
        return 1.20;
    }

    @Override
    double[] joinMovementBounds() {
        return new double[] {0.07, 0.11};
    }

    @Override
    boolean movesOnlyToJoiningNode() {
        return true;
    }
}
