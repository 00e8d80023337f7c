package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

    /** The ring as documented, built the obvious way: a sorted map from token to node, first token at or after. */
    @ParameterizedTest(name = "{0} nodes x {1} vnodes")
    @CsvSource({"1, 1", "1, 3", "3, 1", "3, 256", "10, 16", "100, 256"})
    void lookupMatchesASortedMapOfTokens(int nodeCount, int vnodes) {
        List<String> nodes = nodes(nodeCount);
        RingPartitioner ring = new RingPartitioner(nodes, vnodes);
        TreeMap<Long, Integer> model = new TreeMap<>();
        for (int node = nodeCount - 1; node >= 0; node--) { // lower index wins a token collision
            for (int v = 0; v < vnodes; v++) {
                model.put(KeyHash.hash64((nodes.get(node) + "#" + v).getBytes(StandardCharsets.UTF_8)), node);
            }
        }
        SplittableRandom random = new SplittableRandom(Seeds.seed("ring model " + nodeCount + "x" + vnodes));
        for (long token : model.keySet()) {
            for (long hash : new long[] {token - 1, token, token + 1}) {
                assertEquals(modelOwner(model, hash), ring.nodeOfHash(hash), () -> "hash " + hash);
            }
        }
        for (long hash : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE}) {
            assertEquals(modelOwner(model, hash), ring.nodeOfHash(hash), () -> "hash " + hash);
        }
        for (int i = 0; i < 100_000; i++) {
            long hash = random.nextLong();
            assertEquals(modelOwner(model, hash), ring.nodeOfHash(hash), () -> "hash " + hash);
        }
    }

    private static int modelOwner(TreeMap<Long, Integer> model, long hash) {
        Map.Entry<Long, Integer> at = model.ceilingEntry(hash);
        return (at != null ? at : model.firstEntry()).getValue();
    }

    @Test
    void anyNodeMayLeaveNotOnlyTheLast() {
        double moved = movementWhenRemoving(11, 4, true);
        assertTrue(moved >= 0.05 && moved <= 0.14, () -> "moved " + moved);
    }
}
