package io.kvstore.cluster.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RingPartitionerTest extends PartitionerContractTest {

    @Override
    Partitioner create(List<String> nodes) {
        return new RingPartitioner(nodes, 256);
    }

    @Override
    int[][] golden() {
        return new int[][] {{4, 3, 0}, {3, 2, 0}, {3, 2, 4}, {1, 4, 3}, {1, 3, 4}};
    }

    @Override
    double maxPeakToMean() {
        // 256 points per node: CV about 1/sqrt(256) = 6%, so the peak of 10 nodes sits near 1.1.
        return 1.20;
    }

    @Override
    double[] joinMovementRange() {
        return new double[] {0.7, 1.3};
    }

    @Override
    double[] leaveMovementRange() {
        return new double[] {0.7, 1.3};
    }

    @Test
    void virtualNodesMustBePositive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RingPartitioner(nodes(3), 0));
        assertEquals("virtual nodes per node must be >= 1, got 0", e.getMessage());
    }

    @Test
    void moreVirtualNodesBalanceBetter() {
        SplittableRandom random = new SplittableRandom(5);
        byte[][] keys = new byte[200_000][16];
        for (byte[] k : keys) {
            random.nextBytes(k);
        }
        double one = peakToMean(new RingPartitioner(nodes(10), 1), keys);
        double many = peakToMean(new RingPartitioner(nodes(10), 1000), keys);
        assertTrue(one > 1.5 && many < 1.1, "1 vnode: " + one + ", 1000 vnodes: " + many);
    }

    private static double peakToMean(Partitioner p, byte[][] keys) {
        long[] counts = new long[p.nodes().size()];
        for (byte[] k : keys) {
            counts[p.primary(k)]++;
        }
        return Arrays.stream(counts).max().getAsLong() / (keys.length / (double) counts.length);
    }
}
