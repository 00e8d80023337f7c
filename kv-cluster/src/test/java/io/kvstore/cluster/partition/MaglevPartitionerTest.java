package io.kvstore.cluster.partition;

import io.kvstore.cluster.Partitioner;
import java.util.List;

class MaglevPartitionerTest extends PartitionerContractTest {

    @Override
    Partitioner create(List<String> nodes) {
        return new MaglevPartitioner(nodes);
    }

    @Override
    int[][] golden() {
        return new int[][] {{0, 4, 3}, {0, 2, 3}, {2, 4, 3}, {3, 4, 0}, {3, 1, 0}};
    }

    @Override
    double maxPeakToMean() {
        // Table slots are near-equal; disruption is a little above the minimum, as the paper says.
        return 1.02;
    }

    @Override
    double[] joinMovementRange() {
        return new double[] {0.95, 1.5};
    }

    @Override
    double[] leaveMovementRange() {
        return new double[] {0.95, 1.5};
    }
}
