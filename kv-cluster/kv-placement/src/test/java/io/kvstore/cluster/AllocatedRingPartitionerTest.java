package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kvstore.cluster.internal.TokenAllocator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The partitioner contract for the {@code ring} over allocated tokens: 16 per node, allocated for RF 3
 * as the nodes join in list order, so a cluster of {@code n + 1} nodes keeps the tokens of the first
 * {@code n}.
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
        return Partitioners.ring(nodes, TokenAllocator.allocateAll(nodes.size(), 16, 3));
    }

    @Override
    Map<String, int[]> golden() {
        return Map.ofEntries(
                Map.entry("", new int[] {0, 1, 4}),
                Map.entry("a", new int[] {1, 2, 4}),
                Map.entry("1", new int[] {4, 1, 0}),
                Map.entry("2", new int[] {1, 4, 0}),
                Map.entry("user:42", new int[] {0, 3, 1}),
                Map.entry("hello world", new int[] {3, 4, 0}),
                Map.entry("\u00e9t\u00e9", new int[] {0, 1, 4}),
                Map.entry("key-with-a-length-over-32-bytes-0123456789", new int[] {4, 0, 3}));
    }

    @Override
    double maxPeakToMean() {
        return 1.10;
    }

    @Override
    double[] joinMovementBounds() {
        return new double[] {0.07, 0.11};
    }

    @Override
    boolean movesOnlyToJoiningNode() {
        return true;
    }

    @Test
    void theRingBuiltFromAllocatedTokensPlacesKeysOnTheFirstTokenAtOrAfterTheirHash() {
        List<long[]> placed = TokenAllocator.allocateAll(7, 16, 2);
        RingPartitioner ring = new RingPartitioner(nodes(7), placed);
        TreeMap<Long, Integer> model = new TreeMap<>();
        for (int node = 0; node < placed.size(); node++) {
            for (long token : placed.get(node)) {
                model.put(token, node);
            }
        }
        for (long token : model.keySet()) {
            for (long hash : new long[] {token - 1, token, token + 1}) {
                Map.Entry<Long, Integer> at = model.ceilingEntry(hash);
                int expected = (at != null ? at : model.firstEntry()).getValue();
                assertEquals(expected, ring.nodeOfHash(hash), () -> "hash " + hash);
            }
        }
    }
}
