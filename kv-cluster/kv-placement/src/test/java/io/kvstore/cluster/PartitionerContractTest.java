package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract of {@link Partitioner}, run against every algorithm by a subclass that states the
 * algorithm's own bounds on balance and movement.
 */
abstract class PartitionerContractTest {
    static final int MANY_KEYS = 1_000_000;
    static final int MOVEMENT_KEYS = 200_000;

    /** The name given to {@link Partitioners#create(String, List)}. */
    abstract String algorithm();

    /** Keys -> {@code replicas(key, 3)} over {@link #goldenNodes()}: pinned so a change of hash is caught. */
    abstract Map<String, int[]> golden();

    /** Upper bound of (keys on the busiest node) / (mean keys per node) over 10 nodes. */
    abstract double maxPeakToMean();

    /** Bounds [min, max] of the fraction of keys whose primary changes when an 11th node joins 10. */
    abstract double[] joinMovementBounds();

    /** Whether every key that moves on a join moves to the new node (true for the consistent schemes). */
    abstract boolean movesOnlyToJoiningNode();

    Partitioner create(List<String> nodes) {
        return Partitioners.create(algorithm(), nodes);
    }

    static List<String> nodes(int count) {
        List<String> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            nodes.add("http://10.0.0." + (i + 1) + ":8080");
        }
        return nodes;
    }

    static List<String> goldenNodes() {
        return nodes(5);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void placementMatchesThePinnedGoldenList() {
        Partitioner partitioner = create(goldenNodes());
        for (Map.Entry<String, int[]> golden : golden().entrySet()) {
            assertArrayEquals(golden.getValue(), partitioner.replicas(utf8(golden.getKey()), 3),
                    () -> algorithm() + " placement of '" + golden.getKey() + "' changed: " + actualGolden(partitioner));
        }
    }

    @Test
    void twoInstancesOverTheSameNodesPlaceEveryKeyAlike() {
        Partitioner first = create(nodes(7));
        Partitioner second = create(new ArrayList<>(nodes(7)));
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " determinism"));
        byte[] key = new byte[12];
        for (int i = 0; i < 10_000; i++) {
            randomKey(random, key);
            assertArrayEquals(first.replicas(key, 7), second.replicas(key, 7));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 10, 33})
    void replicasAreDistinctNodeIndexes(int nodeCount) {
        Partitioner partitioner = create(nodes(nodeCount));
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " distinct " + nodeCount));
        byte[] key = new byte[8];
        int[] out = new int[nodeCount];
        for (int i = 0; i < 2_000; i++) {
            randomKey(random, key);
            partitioner.replicas(key, nodeCount, out);
            boolean[] seen = new boolean[nodeCount];
            for (int node : out) {
                assertTrue(node >= 0 && node < nodeCount, () -> "index out of range: " + Arrays.toString(out));
                assertTrue(!seen[node], () -> "duplicate replica in " + Arrays.toString(out));
                seen[node] = true;
            }
        }
    }

    @Test
    void fewerReplicasAreAPrefixOfMore() {
        int nodeCount = 9;
        Partitioner partitioner = create(nodes(nodeCount));
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " prefix"));
        byte[] key = new byte[10];
        for (int i = 0; i < 2_000; i++) {
            randomKey(random, key);
            int[] all = partitioner.replicas(key, nodeCount);
            assertEquals(all[0], partitioner.primary(key));
            for (int count = 1; count < nodeCount; count++) {
                assertArrayEquals(Arrays.copyOf(all, count), partitioner.replicas(key, count));
            }
        }
    }

    @Test
    void writesIntoACallerArrayAndReturnsIt() {
        Partitioner partitioner = create(nodes(4));
        int[] out = {-1, -1, -1, -1, 99};
        assertSame(out, partitioner.replicas(utf8("k"), 2, out));
        assertArrayEquals(partitioner.replicas(utf8("k"), 2), Arrays.copyOf(out, 2));
        assertEquals(-1, out[2], "only the first count slots are written");
        assertEquals(99, out[4]);
    }

    @Test
    void aSingleNodeOwnsEveryKey() {
        Partitioner partitioner = create(List.of("only"));
        assertEquals(List.of("only"), partitioner.nodes());
        for (int i = 0; i < 1_000; i++) {
            byte[] key = utf8(Integer.toString(i));
            assertEquals(0, partitioner.primary(key));
            assertArrayEquals(new int[] {0}, partitioner.replicas(key, 1));
        }
        assertEquals(0, partitioner.primary(new byte[0]));
    }

    @Test
    void emptyAndLongKeysArePlaced() {
        Partitioner partitioner = create(nodes(3));
        assertEquals(3, partitioner.replicas(new byte[0], 3).length);
        byte[] longKey = new byte[10_000];
        Arrays.fill(longKey, (byte) 'x');
        assertEquals(partitioner.primary(longKey), partitioner.replicas(longKey, 3)[0]);
    }

    @Test
    void nodesAreCopiedAndUnmodifiable() {
        List<String> configured = new ArrayList<>(nodes(3));
        Partitioner partitioner = create(configured);
        configured.set(0, "changed");
        assertEquals(nodes(3), partitioner.nodes());
        assertThrows(UnsupportedOperationException.class, () -> partitioner.nodes().add("x"));
    }

    @Test
    void badConfigurationIsRejectedWithAClearMessage() {
        assertMessageContains("at least one node", () -> create(List.of()));
        assertMessageContains("at least one node", () -> create(null));
        assertMessageContains("duplicate node 'b'", () -> create(List.of("a", "b", "b")));
        assertMessageContains("empty name", () -> create(List.of("a", "")));
        assertMessageContains("virtual nodes", () -> Partitioners.create(algorithm(), nodes(3), 0));
        assertMessageContains("virtual nodes", () -> Partitioners.create(algorithm(), nodes(3), -5));
    }

    @Test
    void badReplicaCountsAreRejected() {
        Partitioner partitioner = create(nodes(3));
        assertMessageContains("replica count 4 is out of range [1, 3]", () -> partitioner.replicas(utf8("k"), 4));
        assertMessageContains("replica count 0", () -> partitioner.replicas(utf8("k"), 0));
        assertMessageContains("cannot hold 3", () -> partitioner.replicas(utf8("k"), 3, new int[2]));
    }

    @Test
    void randomKeysAreBalanced() {
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " random balance"));
        byte[] key = new byte[16];
        assertBalanced("1M random keys", i -> randomKey(random, key));
    }

    @Test
    void sequentialKeysAreBalancedLikeRandomOnes() {
        assertBalanced("keys \"1\"..\"1000000\"", i -> utf8(Integer.toString(i + 1)));
    }

    @Test
    void aJoiningNodeMovesOnlyItsShareOfKeys() {
        Partitioner before = create(nodes(10));
        Partitioner after = create(nodes(11));
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " join"));
        byte[] key = new byte[16];
        int moved = 0;
        for (int i = 0; i < MOVEMENT_KEYS; i++) {
            randomKey(random, key);
            int old = before.primary(key);
            int now = after.primary(key);
            if (old != now) {
                moved++;
                if (movesOnlyToJoiningNode()) {
                    assertEquals(10, now, "a key moved between two old nodes");
                }
            }
        }
        double fraction = (double) moved / MOVEMENT_KEYS;
        double[] bounds = joinMovementBounds();
        System.out.printf("%s: 10 -> 11 nodes moved %.4f of keys (ideal 1/11 = %.4f)%n", algorithm(), fraction, 1 / 11.0);
        assertTrue(fraction >= bounds[0] && fraction <= bounds[1],
                () -> algorithm() + " moved " + fraction + " of keys on join, expected within " + Arrays.toString(bounds));
    }

    @Test
    void aLeavingNodeMovesOnlyItsShareOfKeys() {
        Partitioner before = create(nodes(11));
        Partitioner after = create(nodes(10));
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " leave"));
        byte[] key = new byte[16];
        int moved = 0;
        for (int i = 0; i < MOVEMENT_KEYS; i++) {
            randomKey(random, key);
            int old = before.primary(key);
            if (old != after.primary(key)) {
                moved++;
                if (movesOnlyToJoiningNode()) {
                    assertEquals(10, old, "a key moved off a node that stayed");
                }
            }
        }
        double fraction = (double) moved / MOVEMENT_KEYS;
        double[] bounds = joinMovementBounds();
        System.out.printf("%s: 11 -> 10 nodes moved %.4f of keys%n", algorithm(), fraction);
        assertTrue(fraction >= bounds[0] && fraction <= bounds[1],
                () -> algorithm() + " moved " + fraction + " of keys on leave, expected within " + Arrays.toString(bounds));
    }

    @Test
    void secondReplicasAreSpreadOverTheOtherNodes() {
        Partitioner partitioner = create(nodes(10));
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " second replicas"));
        byte[] key = new byte[16];
        int[] out = new int[3];
        long[] load = new long[10];
        for (int i = 0; i < MOVEMENT_KEYS; i++) {
            randomKey(random, key);
            partitioner.replicas(key, 3, out);
            load[out[1]]++;
            load[out[2]]++;
        }
        double peakToMean = peakToMean(load);
        System.out.printf("%s: replicas 2..3 peak/mean %.4f%n", algorithm(), peakToMean);
        assertTrue(peakToMean <= maxPeakToMean() + 0.05,
                () -> algorithm() + " second/third replica load " + Arrays.toString(load));
    }

    /**
     * The fraction of keys whose primary changes when node {@code removed} leaves a cluster of
     * {@code nodeCount} (the others keep their order). With {@code onlyItsKeys}, checks that every key
     * that moved was on the removed node.
     */
    double movementWhenRemoving(int nodeCount, int removed, boolean onlyItsKeys) {
        List<String> before = nodes(nodeCount);
        List<String> after = new ArrayList<>(before);
        after.remove(removed);
        Partitioner full = create(before);
        Partitioner reduced = create(after);
        SplittableRandom random = new SplittableRandom(Seeds.seed(algorithm() + " remove node " + removed));
        byte[] key = new byte[16];
        int moved = 0;
        for (int i = 0; i < MOVEMENT_KEYS; i++) {
            randomKey(random, key);
            String owner = before.get(full.primary(key));
            if (!owner.equals(after.get(reduced.primary(key)))) {
                moved++;
                if (onlyItsKeys) {
                    assertEquals(before.get(removed), owner, "a key moved off a node that stayed");
                }
            }
        }
        double fraction = (double) moved / MOVEMENT_KEYS;
        System.out.printf("%s: removing node %d of %d moved %.4f of keys%n", algorithm(), removed, nodeCount, fraction);
        return fraction;
    }

    private void assertBalanced(String what, KeySource keys) {
        int nodeCount = 10;
        Partitioner partitioner = create(nodes(nodeCount));
        long[] load = new long[nodeCount];
        for (int i = 0; i < MANY_KEYS; i++) {
            load[partitioner.primary(keys.key(i))]++;
        }
        double peakToMean = peakToMean(load);
        System.out.printf("%s over 10 nodes, %s: peak/mean %.4f (bound %.2f)%n", algorithm(), what, peakToMean, maxPeakToMean());
        assertTrue(peakToMean <= maxPeakToMean(),
                () -> algorithm() + " " + what + ": peak/mean " + peakToMean + " > " + maxPeakToMean()
                        + ", load " + Arrays.toString(load));
    }

    static double peakToMean(long[] load) {
        long total = 0;
        long peak = 0;
        for (long l : load) {
            total += l;
            peak = Math.max(peak, l);
        }
        return peak / ((double) total / load.length);
    }

    static byte[] randomKey(SplittableRandom random, byte[] key) {
        for (int i = 0; i < key.length; i += 8) {
            long bits = random.nextLong();
            for (int j = i; j < Math.min(key.length, i + 8); j++) {
                key[j] = (byte) bits;
                bits >>>= 8;
            }
        }
        return key;
    }

    private String actualGolden(Partitioner partitioner) {
        StringBuilder sb = new StringBuilder("actual:");
        for (String key : golden().keySet()) {
            sb.append(" \"").append(key).append("\" -> ").append(Arrays.toString(partitioner.replicas(utf8(key), 3)));
        }
        return sb.toString();
    }

    private static void assertMessageContains(String expected, Runnable action) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action::run);
        assertTrue(e.getMessage().contains(expected), () -> "message '" + e.getMessage() + "' lacks '" + expected + "'");
    }

    @FunctionalInterface
    interface KeySource {
        byte[] key(int index);
    }
}
