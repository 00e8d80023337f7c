package io.kvstore.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TokenAllocatorTest {

    @ParameterizedTest(name = "RF {0}, {1} tokens per node")
    @CsvSource({"1, 16", "3, 16", "2, 16", "3, 8"})
    void replicatedOwnershipStaysEvenAsAClusterGrowsOneNodeAtATime(int replicationFactor, int tokens) {
        double bound = tokens >= 16 ? 1.10 : 1.15;
        List<long[]> placed = new ArrayList<>();
        double worst = 0;
        for (int nodes = 1; nodes <= 50; nodes++) {
            placed.add(TokenAllocator.allocate(placed, tokens, replicationFactor));
            if (nodes > replicationFactor) {
                double peakToMean = peakToMean(ownership(placed, replicationFactor));
                worst = Math.max(worst, peakToMean);
                int size = nodes;
                assertTrue(peakToMean <= bound, () -> size + " nodes, RF " + replicationFactor + ": most loaded node holds "
                        + peakToMean + " x the mean");
                double firstReplicas = peakToMean(ownership(placed, 1));
                assertTrue(firstReplicas <= 0.05 + bound, () -> size + " nodes, RF " + replicationFactor
                        + ": the busiest first replica holds " + firstReplicas + " x the mean");
            }
        }
        System.out.printf("allocated %d tokens, RF %d, 1..50 nodes: worst peak/mean %.4f%n", tokens, replicationFactor, worst);
    }

    @Test
    void randomTokensAreLessEvenWithTheSameCount() {
        List<long[]> allocated = TokenAllocator.allocateAll(50, 16, 3);
        List<long[]> random = new ArrayList<>();
        List<String> names = nodes(50);
        for (String name : names) {
            random.add(Partitioners.hashedRingTokens(name, 16));
        }
        double allocatedPeak = peakToMean(ownership(allocated, 3));
        double randomPeak = peakToMean(ownership(random, 3));
        assertTrue(allocatedPeak < randomPeak, () -> "allocated " + allocatedPeak + " vs random " + randomPeak);
    }

    @Test
    void replicatedOwnershipIsTheShareOfHashesEachNodeReplicates() {
        List<long[]> placed = TokenAllocator.allocateAll(9, 8, 3);
        placed.add(Partitioners.hashedRingTokens("extra", 8));
        for (int rf : new int[] {1, 2, 3, 10, 12}) {
            double[] expected = ownership(placed, rf);
            double[] actual = TokenAllocator.replicatedOwnership(placed, rf);
            for (int node = 0; node < expected.length; node++) {
                assertEquals(expected[node], actual[node], 1e-12, "RF " + rf + ", node " + node);
            }
        }
    }

    @Test
    void theSameRingGivesTheSameTokens() {
        List<long[]> first = TokenAllocator.allocateAll(20, 16, 3);
        List<long[]> second = TokenAllocator.allocateAll(20, 16, 3);
        for (int node = 0; node < first.size(); node++) {
            assertArrayEquals(first.get(node), second.get(node), "node " + node);
        }
        assertArrayEquals(TokenAllocator.allocate(first, 16, 3), TokenAllocator.allocate(second, 16, 3));
    }

    @Test
    void everyTokenIsDistinctAndEachNodeGetsItsCount() {
        List<long[]> placed = TokenAllocator.allocateAll(40, 16, 3);
        Set<Long> seen = new HashSet<>();
        for (long[] tokens : placed) {
            assertEquals(16, tokens.length);
            for (long token : tokens) {
                assertTrue(seen.add(token), () -> "token " + token + " allocated twice");
            }
        }
    }

    @Test
    void theFirstNodeGetsEvenlySpacedTokensAndOneTokenRingsWork() {
        long[] first = TokenAllocator.allocate(List.of(), 4, 3);
        assertArrayEquals(new long[] {Long.MIN_VALUE, -(1L << 62), 0, 1L << 62}, first);
        List<long[]> single = TokenAllocator.allocateAll(5, 1, 1);
        assertEquals(5, single.stream().mapToLong(t -> t[0]).distinct().count());
    }

    @Test
    void aNodeThatLeavesTakesOnlyItsOwnRangesAway() {
        List<long[]> placed = TokenAllocator.allocateAll(12, 16, 3);
        List<String> names = nodes(12);
        Partitioner full = Partitioners.ring(names, placed);
        List<long[]> remaining = new ArrayList<>(placed);
        List<String> remainingNames = new ArrayList<>(names);
        remaining.remove(4);
        remainingNames.remove(4);
        Partitioner reduced = Partitioners.ring(remainingNames, remaining);
        byte[] key = new byte[8];
        for (int i = 0; i < 100_000; i++) {
            long hash = KeyHash.mix(i);
            for (int b = 0; b < 8; b++) {
                key[b] = (byte) (hash >>> (8 * b));
            }
            String before = names.get(full.primary(key));
            String after = remainingNames.get(reduced.primary(key));
            if (!before.equals(names.get(4))) {
                assertEquals(before, after, "a key moved off a node that stayed");
            }
        }
        // The survivors stay reasonably even without any new allocation.
        assertTrue(peakToMean(ownership(remaining, 3)) <= 1.25);
    }

    @ParameterizedTest(name = "100 seeds, RF {0}")
    @CsvSource({"3", "100"})
    void seedingAHundredNodesAtOnceIsQuickAndEven(int replicationFactor) {
        List<long[]> placed = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> TokenAllocator.allocateAll(100, TokenAllocator.DEFAULT_TOKENS, replicationFactor));
        assertEquals(100, placed.size());
        double firstReplicas = peakToMean(ownership(placed, 1));
        assertTrue(firstReplicas <= 1.10, () -> "RF " + replicationFactor + ": the busiest first replica holds "
                + firstReplicas + " x the mean");
        double replicated = peakToMean(ownership(placed, replicationFactor));
        assertTrue(replicated <= 1.10, () -> "RF " + replicationFactor + ": the busiest node holds " + replicated + " x the mean");
        System.out.printf("100 seeds, RF %d: first replicas peak/mean %.4f, replicas %.4f%n", replicationFactor,
                firstReplicas, replicated);
    }

    @Test
    void whenEveryNodeHoldsEveryKeyOnlyTheFirstReplicasAreBalanced() {
        assertEquals(3, TokenAllocator.replicasToBalance(4, 3));
        assertEquals(20, TokenAllocator.replicasToBalance(100, 20));
        assertEquals(2, TokenAllocator.replicasToBalance(3, 3), "a small RF is anticipated");
        assertEquals(0, TokenAllocator.replicasToBalance(20, 20), "a large RF is not: every node holds every key");
        assertEquals(0, TokenAllocator.replicasToBalance(2, 50));
        List<long[]> placed = TokenAllocator.allocateAll(20, TokenAllocator.DEFAULT_TOKENS, 20);
        double firstReplicas = peakToMean(ownership(placed, 1));
        assertTrue(firstReplicas <= 1.10, () -> "the busiest first replica holds " + firstReplicas + " x the mean");
    }

    @Test
    void badArgumentsAreRefusedWithTheReason() {
        assertMessage("at least one token", () -> TokenAllocator.allocate(List.of(), 0, 3));
        assertMessage("replication factor", () -> TokenAllocator.allocate(List.of(), 16, 0));
        assertMessage("node #1 holds no tokens", () -> TokenAllocator.allocate(List.of(new long[] {1}, new long[0]), 4, 1));
        assertMessage("held by nodes #0 and #1", () -> TokenAllocator.allocate(List.of(new long[] {1, 2}, new long[] {2}), 4, 1));
        assertMessage("has no tokens", () -> Partitioners.ring(List.of("a", "b"), List.of(new long[] {1}, new long[0])));
        assertMessage("2 nodes need 2 token lists, got 1", () -> Partitioners.ring(List.of("a", "b"), List.of(new long[] {1})));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /**
     * Each node's share of the hash space as one of the first {@code rf} distinct nodes clockwise, computed
     * the plain way: a sorted map of tokens and a walk per range.
     */
    static double[] ownership(List<long[]> placed, int rf) {
        TreeMap<Long, Integer> ring = new TreeMap<>();
        for (int node = 0; node < placed.size(); node++) {
            for (long token : placed.get(node)) {
                ring.put(token, node);
            }
        }
        List<Long> tokens = new ArrayList<>(ring.keySet());
        double[] ownership = new double[placed.size()];
        int replicas = Math.min(rf, placed.size());
        for (int i = 0; i < tokens.size(); i++) {
            long width = tokens.get(i) - tokens.get((i - 1 + tokens.size()) % tokens.size());
            double share = tokens.size() == 1 ? 1 : TokenRing.unsignedToDouble(width) / 0x1p64;
            Set<Integer> owners = new LinkedHashSet<>();
            for (int j = i; owners.size() < replicas; j = (j + 1) % tokens.size()) {
                owners.add(ring.get(tokens.get(j)));
            }
            for (int owner : owners) {
                ownership[owner] += share;
            }
        }
        return ownership;
    }

    static double peakToMean(double[] ownership) {
        double sum = 0;
        double peak = 0;
        for (double share : ownership) {
            sum += share;
            peak = Math.max(peak, share);
        }
        return peak / (sum / ownership.length);
    }

    private static List<String> nodes(int count) {
        List<String> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            nodes.add("http://10.0.0." + (i + 1) + ":8080");
        }
        return nodes;
    }
}
