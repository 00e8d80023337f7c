package io.kvstore.cluster.partition;

import io.kvstore.cluster.Partitioner;
import java.util.List;

class RendezvousPartitionerTest extends PartitionerContractTest {

    @Override
    Partitioner create(List<String> nodes) {
        return new RendezvousPartitioner(nodes);
    }

    @Override
    int[][] golden() {
        return new int[][] {{3, 0, 2}, {3, 1, 2}, {0, 1, 2}, {3, 0, 1}, {2, 4, 3}};
    }

    @Override
    double maxPeakToMean() {
        // Independent draws per key: only sampling noise.
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
