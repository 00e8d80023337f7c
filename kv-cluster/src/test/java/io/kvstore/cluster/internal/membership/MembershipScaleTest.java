package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A join on simulated clusters of many nodes (a hop of 0.5 ms, 100 MB/s per node's link): how long the
 * change and the spreading of its map take, and what the senders read and send against the ideal. The
 * default suite runs 20 nodes; {@code -Dkv.scaleNodes=100,1000} runs the sizes of the results page
 * (docs/BENCHMARKS.md, "Simulated clusters of 100 and 1,000 nodes").
 */
class MembershipScaleTest {
    private static final String SIZES = System.getProperty("kv.scaleNodes", "20");
    private static final int KEYS_PER_NODE = Integer.getInteger("kv.scaleKeysPerNode", 300);
    private static final int VALUE_BYTES = 1_000;

    @Test
    void aJoinCompletesAndEveryNodeLearnsTheMapWithTheIdealStreamsOnTheRing() {
        List<String> rows = new ArrayList<>();
        for (String size : SIZES.split(",")) {
            int nodes = Integer.parseInt(size.trim());
            for (String partitioner : new String[] {"ring", "jump"}) {
                MembershipSimulation.ScaleResult result = new MembershipSimulation(nodes,
                        new MembershipSimulation.Scale(nodes, 3, partitioner, KEYS_PER_NODE, VALUE_BYTES)).runScale();
                rows.add(String.format("| %,d | %s | %,d ms | %.1f ms | %,d / %,d (%.2f) | %,d (%.1f%% of the copies held) | %,d B |",
                        nodes, partitioner, result.joinMillis(), result.learnMicros() / 1000.0, result.keysStreamed(), result.keysIdeal(),
                        (double) result.keysStreamed() / result.keysIdeal(), result.keysScanned(),
                        100.0 * result.keysScanned() / ((long) KEYS_PER_NODE * nodes), result.mapBytes()));
                assertTrue(result.keysStreamed() >= result.keysIdeal(), "every node that gains a key gets it: " + result);
                if (partitioner.equals("ring")) {
                    assertEquals(result.keysIdeal(), result.keysStreamed(), "on the ring each gained key comes from the one node losing it");
                }
            }
        }
        System.out.println("| nodes | partitioner | join | map learned by all | keys streamed / ideal | keys scanned | map |");
        System.out.println("|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }
}
