package io.kvstore.cluster.internal;

import io.kvstore.cluster.Partitioners;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Chooses the tokens of a node joining a {@code ring} so that the <em>replicated</em> ownership of the
 * nodes (each node's share of keys as one of their first {@code RF} replicas) stays even, given the
 * tokens already placed. Random tokens need many per node to even out by chance and still leave some
 * nodes well above the mean; allocated ones do better with a few (figures in docs/BENCHMARKS.md).
 *
 * <p>The method follows the idea of Cassandra's replication-aware allocator. The new node's tokens are
 * placed one at a time, each where it most reduces an objective: the squared distance of every node's
 * replicated ownership from its target (the mean for the nodes already there; for the new node the
 * share of the mean its tokens placed so far should carry, so that its first tokens do not grab what
 * its last ones need), plus, weighted, the same for the nodes' shares of first replicas (which
 * coordinate the requests of partition-aware clients) and the sum of squares of the ranges' widths
 * (which keeps ranges of similar width, so that none shrinks to a sliver no later node can use). A
 * token splits one range of the ring: the keys on its left go to the new node first, which pushes the
 * last of their former replicas out, and the ranges just before it whose replicas reach past it lose
 * their last replica to the new node too. Only the width of the left part depends on where in the range
 * the token goes, and the objective is quadratic in it, so each range's best point is found in closed
 * form and every range is tried.
 *
 * <p>The first node of a ring gets evenly spaced tokens. While the ring, new node included, has no more
 * nodes than {@code RF}, every node holds every key and the replica term means nothing for the ring as
 * it is: for a small {@code RF} tokens are balanced for one replica fewer than the nodes, so that the
 * ring is already even when it outgrows {@code RF}; for a large one (where a node's share is close to
 * the mean anyway once the ring outgrows it) the term is dropped and tokens are placed for the first
 * replicas' balance only, with the ranges' widths (see {@link #replicasToBalance}).
 *
 * <p>Deterministic: the same tokens placed, token count and replication factor give the same tokens
 * on every JVM. A node's tokens never change once chosen: when a node leaves, the others keep theirs
 * (its ranges go to the nodes after them, as with random tokens). Placing one token evaluates every
 * range of the ring, each looking at the ranges within {@code RF} distinct nodes before it (whose
 * preference lists the ring keeps), and then recomputes those lists: a join of {@code T} tokens into a
 * ring of {@code R} costs about {@code T * R * RF^2} steps, and seeding {@code N} nodes at once about
 * {@code (T * N)^2 * RF^2 / 2}.
 */
public final class TokenAllocator {
    /** Tokens per node when they are allocated: enough for balance, few enough that each range is large. */
    public static final int DEFAULT_TOKENS = 16;

    /**
     * Weight of the first replicas' shares in the objective: a partition-aware client sends each request
     * to its key's first replica, which coordinates it, so those shares should be even too.
     */
    private static final double PRIMARY_WEIGHT = 2;
    /** Weight of the ranges' widths in the objective, which keeps them from shrinking to slivers. */
    private static final double WIDTH_WEIGHT = 2;

    /**
     * Replication factors below this one are anticipated while the ring has no more nodes than the
     * factor: from 10 on, the factor's own spread is within the 1.1 times the mean allocation aims at.
     */
    static final int ANTICIPATED_FACTORS = 10;

    private final TokenRing ring;
    /** Whether the objective weighs replicated ownership: not when every node holds every key. */
    private final boolean replicaTerm;
    private final int newNode;
    private final int tokenCount;
    private int placedSoFar;
    /** Per node, the change of its ownership that a candidate makes, whatever its split point. */
    private final double[] delta;
    /** Per node, +1 if it gains the candidate's left part, -1 if it loses it. */
    private final int[] sign;
    private final int[] touched;
    private int touchedCount;
    private final int[] distinct;

    private TokenAllocator(TokenRing ring, int newNode, int tokenCount, boolean replicaTerm) {
        this.replicaTerm = replicaTerm;
        this.ring = ring;
        this.newNode = newNode;
        this.tokenCount = tokenCount;
        this.delta = new double[newNode + 1];
        this.sign = new int[newNode + 1];
        this.touched = new int[newNode + 1];
        this.distinct = new int[ring.replicas()];
    }

    /**
     * The tokens of a node joining a ring whose nodes hold {@code placed}, sorted in signed order.
     *
     * @param placed            the tokens of each node already in the ring (none for the first node)
     * @param tokens            how many tokens the new node takes
     * @param replicationFactor how many replicas of each key the cluster keeps
     * @throws IllegalArgumentException for {@code tokens} or {@code replicationFactor} below 1, a node
     *                                  without tokens, or a token held twice
     */
    public static long[] allocate(List<long[]> placed, int tokens, int replicationFactor) {
        if (tokens < 1) {
            throw new IllegalArgumentException("a node needs at least one token, got " + tokens);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor must be >= 1, got " + replicationFactor);
        }
        for (int node = 0; node < placed.size(); node++) {
            if (placed.get(node).length == 0) {
                throw new IllegalArgumentException("node #" + node + " holds no tokens");
            }
        }
        if (placed.isEmpty()) {
            return evenlySpaced(tokens);
        }
        int replicas = replicasToBalance(placed.size() + 1, replicationFactor);
        TokenRing ring = new TokenRing(placed, placed.size() + 1, Math.max(1, replicas));
        if ((long) ring.size() + tokens > Partitioners.MAX_RING_TOKENS) {
            throw new IllegalArgumentException("ring partitioner: " + ring.size() + " tokens placed and " + tokens
                    + " more exceed the limit of " + Partitioners.MAX_RING_TOKENS);
        }
        TokenAllocator allocator = new TokenAllocator(ring, placed.size(), tokens, replicas > 0);
        long[] chosen = new long[tokens];
        for (int t = 0; t < tokens; t++) {
            chosen[t] = allocator.placeOne();
            allocator.placedSoFar++;
        }
        Arrays.sort(chosen);
        return chosen;
    }

    /** The tokens of {@code nodes} nodes that join an empty ring one after the other, in that order. */
    public static List<long[]> allocateAll(int nodes, int tokens, int replicationFactor) {
        List<long[]> placed = new ArrayList<>(nodes);
        for (int node = 0; node < nodes; node++) {
            placed.add(allocate(placed, tokens, replicationFactor));
        }
        return placed;
    }

    /**
     * Each node's replicated ownership on the ring of {@code tokens} (node {@code i} holding
     * {@code tokens.get(i)}): its share of the hash space as one of the first {@code replicationFactor}
     * distinct nodes clockwise from a hash, the share of keys it stores. The shares add up to
     * {@code min(replicationFactor, nodes)}.
     *
     * @throws IllegalArgumentException for a replication factor below 1, a node without tokens or a token held twice
     */
    public static double[] replicatedOwnership(List<long[]> tokens, int replicationFactor) {
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor must be >= 1, got " + replicationFactor);
        }
        for (int node = 0; node < tokens.size(); node++) {
            if (tokens.get(node).length == 0) {
                throw new IllegalArgumentException("node #" + node + " holds no tokens");
            }
        }
        TokenRing ring = new TokenRing(tokens, tokens.size(), Math.min(replicationFactor, tokens.size()));
        double[] ownership = new double[tokens.size()];
        for (int node = 0; node < ownership.length; node++) {
            ownership[node] = ring.ownership(node);
        }
        return ownership;
    }

    /**
     * How many replicas of each range the replica term of the objective balances on a ring of
     * {@code nodes} nodes, new node included; 0 drops the term. With more nodes than the replication
     * factor, the factor. Else every node holds every key and only the ring's future matters: below
     * {@link #ANTICIPATED_FACTORS} it is balanced for one replica fewer than its nodes, as it will be
     * once it outgrows the factor; from there on a node of {@code RF + 1} holds at most
     * {@code (RF + 1) / RF} times the mean whatever its tokens, and the term, whose cost grows with
     * the cube of the replicas, is dropped.
     */
    static int replicasToBalance(int nodes, int replicationFactor) {
        if (replicationFactor < nodes) {
            return replicationFactor;
        }
        return replicationFactor < ANTICIPATED_FACTORS ? nodes - 1 : 0;
    }

    private static long[] evenlySpaced(int tokens) {
        // floor(2^64 / tokens), computed from 2^64 - 1, the largest unsigned long
        long step = Long.divideUnsigned(-1L, tokens) + (Long.remainderUnsigned(-1L, tokens) == tokens - 1 ? 1 : 0);
        long[] chosen = new long[tokens];
        for (int t = 0; t < tokens; t++) {
            chosen[t] = Long.MIN_VALUE + t * step;
        }
        return chosen;
    }

    /** Places the best token of the new node into the ring and returns it. */
    private long placeOne() {
        int bestRange = -1;
        double bestCost = Double.POSITIVE_INFINITY;
        long bestOffset = 0;
        for (int range = 0; range < ring.size(); range++) {
            long width = ring.size() == 1 ? -1L : ring.widthInHashes(range);
            if (Long.compareUnsigned(width, 2) < 0) {
                continue; // no free hash strictly inside
            }
            double cost = evaluate(range);
            if (cost < bestCost) {
                bestCost = cost;
                bestRange = range;
                bestOffset = offsetInHashes(split, width);
            }
        }
        if (bestRange < 0) {
            throw new IllegalStateException("no room left on the ring for another token");
        }
        long previous = ring.token(ring.previous(bestRange));
        long token = previous + bestOffset;
        int index = bestRange;
        if (bestRange == 0) {
            // The first range wraps around: the token is either past the last one or before the first.
            index = token > ring.token(ring.size() - 1) ? ring.size() : 0;
        }
        ring.insert(index, token, newNode);
        return token;
    }

    /** Set by {@link #evaluate}: the width of the part of the range the new token takes, as a fraction of the hash space. */
    private double split;

    /**
     * Evaluates a token of the new node in range {@code range} at its best point, left in {@link #split}:
     * returns how much the token changes the objective (the lower, the better).
     */
    private double evaluate(int range) {
        touchedCount = 0;
        double fixed = 0;
        double quadratic = 0;
        double linear = 0;
        if (replicaTerm) {
            replicaChanges(range);
            for (int i = 0; i < touchedCount; i++) {
                int node = touched[i];
                double load = ring.ownership(node) - target(node);
                double moved = load + delta[node];
                fixed += moved * moved - load * load;
                int s = sign[node];
                quadratic += s * s;
                linear += 2 * s * moved;
            }
        }
        // First replicas: the left part moves from the range's owner to the new node.
        double primaryMean = 1.0 / (newNode + 1);
        double newcomer = ring.primaryOwnership(newNode) - primaryMean * (placedSoFar + 1) / tokenCount;
        double displaced = ring.primaryOwnership(ring.owner(range)) - primaryMean;
        quadratic += 2 * PRIMARY_WEIGHT;
        linear += 2 * PRIMARY_WEIGHT * (newcomer - displaced);
        // Splitting a range of width w at l changes the sum of squared widths by 2l^2 - 2wl.
        double width = ring.width(range);
        quadratic += 2 * WIDTH_WEIGHT;
        linear -= 2 * WIDTH_WEIGHT * width;
        split = Math.max(0, Math.min(width, -linear / (2 * quadratic)));
        for (int i = 0; i < touchedCount; i++) {
            delta[touched[i]] = 0;
            sign[touched[i]] = 0;
        }
        return fixed + quadratic * split * split + linear * split;
    }

    /**
     * Records in {@link #delta} and {@link #sign} how a token of the new node in range {@code range}
     * changes the replicated ownership of each node it touches.
     */
    private void replicaChanges(int range) {
        int replicas = ring.replicas();
        int size = ring.size();
        // The ranges before this one whose preference list reaches past the new token: unless the new
        // node is in it already, it enters the list and the list's last node drops out.
        int distinctCount = 0;
        for (int back = 1; back < size; back++) {
            int index = range - back < 0 ? range - back + size : range - back;
            int owner = ring.owner(index);
            if (!TokenRing.contains(distinct, distinctCount, owner)) {
                distinct[distinctCount++] = owner;
                if (distinctCount >= replicas) {
                    break;
                }
            }
            if (!ring.replicatedBy(index, newNode)) {
                double width = ring.width(index);
                add(ring.lastReplica(index), -width);
                add(newNode, width);
            }
        }
        // The split range: its left part changes hands the same way, its right part does not.
        if (!ring.replicatedBy(range, newNode)) {
            int dropped = ring.lastReplica(range);
            add(newNode, 0);
            sign[newNode] = 1;
            add(dropped, 0);
            sign[dropped] = -1;
        }
    }

    /** The target ownership of {@code node}: the mean, or for the new node its share so far. */
    private double target(int node) {
        double mean = ring.replicas() / (double) (newNode + 1);
        return node == newNode ? mean * (placedSoFar + 1) / tokenCount : mean;
    }

    private void add(int node, double change) {
        if (delta[node] == 0 && sign[node] == 0 && !TokenRing.contains(touched, touchedCount, node)) {
            touched[touchedCount++] = node;
        }
        delta[node] += change;
    }

    /** {@code fraction} of the hash space in hashes, kept strictly inside a range {@code width} hashes wide. */
    private static long offsetInHashes(double fraction, long width) {
        double hashes = fraction * TokenRing.SPAN;
        long offset = hashes >= 0x1p63 ? (long) (hashes - 0x1p63) + Long.MIN_VALUE : (long) hashes;
        if (Long.compareUnsigned(offset, 1) < 0) {
            return 1;
        }
        if (Long.compareUnsigned(offset, width - 1) > 0) {
            return width - 1;
        }
        return offset;
    }
}
