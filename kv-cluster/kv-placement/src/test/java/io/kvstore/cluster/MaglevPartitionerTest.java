package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The partitioner contract for {@code maglev}: Maglev: near-perfect table balance; some extra disruption on changes. */
class MaglevPartitionerTest extends PartitionerContractTest {

    @Override
    String algorithm() {
        return "maglev";
    }

    @Override
    Map<String, int[]> golden() {
        return Map.ofEntries(
                Map.entry("", new int[] {0, 4, 1}),
                Map.entry("a", new int[] {4, 1, 3}),
                Map.entry("1", new int[] {4, 1, 0}),
                Map.entry("2", new int[] {3, 1, 4}),
                Map.entry("user:42", new int[] {3, 0, 4}),
                Map.entry("hello world", new int[] {2, 4, 1}),
                Map.entry("\u00e9t\u00e9", new int[] {1, 0, 3}),
                Map.entry("key-with-a-length-over-32-bytes-0123456789", new int[] {2, 1, 4}));
    }

    @Override
    double maxPeakToMean() {
        return 1.03;
    }

    @Override
    double[] joinMovementBounds() {
        return new double[] {0.085, 0.16};
    }

    @Override
    boolean movesOnlyToJoiningNode() {
        return false;
    }

    @Test
    void anyNodeMayLeaveNotOnlyTheLast() {
        double moved = movementWhenRemoving(11, 4, false);
        assertTrue(moved >= 0.085 && moved <= 0.16, () -> "moved " + moved);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 10, 100, 1000})
    void everyNodeOwnsAnEqualShareOfAPrimeSizedTable(int nodeCount) {
        MaglevPartitioner maglev = new MaglevPartitioner(nodes(nodeCount));
        int tableSize = maglev.tableSize();
        assertTrue(tableSize >= MaglevPartitioner.MIN_TABLE_SIZE && tableSize >= 100 * nodeCount);
        assertTrue(java.math.BigInteger.valueOf(tableSize).isProbablePrime(50), tableSize + " is not prime");
        int total = 0;
        for (int slots : maglev.slotsPerNode()) {
            assertTrue(slots == tableSize / nodeCount || slots == tableSize / nodeCount + 1,
                    () -> slots + " slots, expected " + tableSize / nodeCount + " or one more");
            total += slots;
        }
        assertEquals(tableSize, total);
    }
}
