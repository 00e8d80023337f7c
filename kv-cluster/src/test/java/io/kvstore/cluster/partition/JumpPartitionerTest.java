package io.kvstore.cluster.partition;

import io.kvstore.cluster.Partitioner;
import java.util.List;

class JumpPartitionerTest extends PartitionerContractTest {

    @Override
    Partitioner create(List<String> nodes) {
        return new JumpPartitioner(nodes);
    }

    @Override
    int[][] golden() {
        return new int[][] {{4, 1, 3}, {3, 4, 2}, {1, 4, 3}, {1, 2, 4}, {4, 1, 2}};
    }

    @Override
    double maxPeakToMean() {
        // The paper's promise: optimal movement when the last bucket is added or removed.
        return 1.02;
    }

    @Override
    double[] joinMovementRange() {
        return new double[] {0.95, 1.05};
    }

    @Override
    double[] leaveMovementRange() {
        return new double[] {0.95, 1.05};
    }
}
