package io.kvstore.cluster.partition;

import io.kvstore.cluster.Partitioner;
import java.util.List;

class ModNPartitionerTest extends PartitionerContractTest {

    @Override
    Partitioner create(List<String> nodes) {
        return new ModNPartitioner(nodes);
    }

    @Override
    int[][] golden() {
        return new int[][] {{3, 4, 0}, {4, 0, 1}, {1, 2, 3}, {4, 0, 1}, {2, 3, 4}};
    }

    @Override
    double maxPeakToMean() {
        // The baseline: about n/(n+1) of keys move on any change, i.e. 10x (join) and 9x (leave) the ideal.
        return 1.02;
    }

    @Override
    double[] joinMovementRange() {
        return new double[] {9.0, 10.5};
    }

    @Override
    double[] leaveMovementRange() {
        return new double[] {8.0, 9.5};
    }
}
