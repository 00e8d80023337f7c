package io.kvstore.cluster.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What every partitioner promises, run against each implementation. Subclasses state their own
 * balance and movement bounds and pin a golden list, so an accidental change of hash or algorithm
 * (which would move data on upgrade) fails here.
 */
abstract class PartitionerContractTest {
    static final int BALANCE_KEYS = 1_000_000;
    static final int MOVEMENT_KEYS = 200_000;

    abstract Partitioner create(List<String> nodes);

    /** replicas(key-i, 3) for i = 0..4 on nodes node-0..node-4. */
    abstract int[][] golden();

    /** The largest peak/mean load accepted over 1M keys on 10 nodes. */
    abstract double maxPeakToMean();

    /** Accepted share of keys that move when an 11th node joins 10, as multiples of the ideal 1/11. */
    abstract double[] joinMovementRange();

    /** Accepted share of keys that move when the last of 10 nodes leaves, as multiples of the ideal 1/10. */
    abstract double[] leaveMovementRange();

    static List<String> nodes(int n) {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add("node-" + i);
        }
        return nodes;
    }

    static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void placementIsPinnedByAGoldenList() {
        Partitioner p = create(nodes(5));
        int[][] expected = golden();
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], p.replicas(key("key-" + i), 3), "replicas of key-" + i);
        }
    }

    @Test
    void separatelyBuiltInstancesAgree() {
        Partitioner a = create(nodes(7));
        Partitioner b = create(new ArrayList<>(nodes(7)));
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            byte[] k = new byte[random.nextInt(40)];
            random.nextBytes(k);
            assertArrayEquals(a.replicas(k, 7), b.replicas(k, 7));
        }
    }

    @Test
    void replicasAreDistinctPrefixStableAndStartAtThePrimary() {
        for (int n : new int[] {1, 2, 3, 5, 10}) {
            Partitioner p = create(nodes(n));
            for (int i = 0; i < 2_000; i++) {
                byte[] k = key("k" + i);
                int[] all = p.replicas(k, n);
                int[] sorted = all.clone();
                Arrays.sort(sorted);
                for (int j = 0; j < n; j++) {
                    assertEquals(j, sorted[j], "replicas must be a permutation of the nodes: " + Arrays.toString(all));
                }
                assertEquals(all[0], p.primary(k));
                for (int count = 1; count < n; count++) {
                    assertArrayEquals(Arrays.copyOf(all, count), p.replicas(k, count), "prefix " + count + " of " + n);
                }
            }
        }
    }

    @Test
    void reusesTheCallersArray() {
        Partitioner p = create(nodes(4));
        int[] out = new int[8];
        assertTrue(out == p.replicas(key("x"), 3, out));
    }

    @Test
    void randomKeysAreBalanced() {
        SplittableRandom random = new SplittableRandom(42);
        byte[][] keys = new byte[BALANCE_KEYS][16];
        for (byte[] k : keys) {
            random.nextBytes(k);
        }
        assertBalanced("random", keys);
    }

    @Test
    void sequentialNumericKeysAreBalancedToo() {
        byte[][] keys = new byte[BALANCE_KEYS][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = key(Integer.toString(i + 1));
        }
        assertBalanced("sequential", keys);
    }

    private void assertBalanced(String kind, byte[][] keys) {
        Partitioner p = create(nodes(10));
        long[] counts = new long[10];
        for (byte[] k : keys) {
            counts[p.primary(k)]++;
        }
        double peakToMean = Arrays.stream(counts).max().getAsLong() / (keys.length / 10.0);
        assertTrue(peakToMean <= maxPeakToMean(), String.format(Locale.ROOT,
                "%s keys: peak/mean %.4f above %.4f; per node %s", kind, peakToMean, maxPeakToMean(), Arrays.toString(counts)));
    }

    @Test
    void aJoiningNodeMovesAboutItsShare() {
        double moved = movedShare(create(nodes(10)), create(nodes(11)));
        assertWithin("join 10 -> 11", moved / (1.0 / 11), joinMovementRange());
    }

    @Test
    void aLeavingNodeMovesAboutItsShare() {
        double moved = movedShare(create(nodes(10)), create(nodes(9)));
        assertWithin("leave 10 -> 9", moved / (1.0 / 10), leaveMovementRange());
    }

    private static double movedShare(Partitioner before, Partitioner after) {
        SplittableRandom random = new SplittableRandom(3);
        long moved = 0;
        byte[] k = new byte[16];
        for (int i = 0; i < MOVEMENT_KEYS; i++) {
            random.nextBytes(k);
            if (!before.nodes().get(before.primary(k)).equals(after.nodes().get(after.primary(k)))) {
                moved++;
            }
        }
        return (double) moved / MOVEMENT_KEYS;
    }

    private static void assertWithin(String what, double ratioToIdeal, double[] range) {
        assertTrue(ratioToIdeal >= range[0] && ratioToIdeal <= range[1], String.format(Locale.ROOT,
                "%s moved %.3f x the ideal share, expected within [%.2f, %.2f]", what, ratioToIdeal, range[0], range[1]));
    }

    @Test
    void aSingleNodeOwnsEverything() {
        Partitioner p = create(nodes(1));
        assertEquals(0, p.primary(key("anything")));
        assertArrayEquals(new int[] {0}, p.replicas(key(""), 1));
    }

    @Test
    void badConfigurationAndCountsFailClearly() {
        assertThrows(IllegalArgumentException.class, () -> create(List.of()));
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> create(List.of("a", "b", "a")));
        assertTrue(dup.getMessage().contains("duplicate node 'a'"), dup.getMessage());
        assertThrows(IllegalArgumentException.class, () -> create(List.of("a", " ")));
        Partitioner p = create(nodes(3));
        assertThrows(IllegalArgumentException.class, () -> p.replicas(key("k"), 0));
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class, () -> p.replicas(key("k"), 4));
        assertEquals("replica count must be in [1, 3], got 4", tooMany.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.replicas(key("k"), 2, new int[1]));
    }
}
