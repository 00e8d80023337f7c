package io.kvstore.cluster.internal.repair;

import io.kvstore.cluster.KeyHash;

/**
 * A hash tree over {@code 2^depth} segments of the key space, as a complete binary tree in an array
 * ({@code 2^(depth+1)} longs): node {@code i} of level {@code l} is at {@code 2^l + i}, level 0 is the
 * root and level {@code depth} the segments.
 *
 * <p>A key's segment is the top {@code depth} bits of its placement hash ({@link KeyHash#hash64}).
 * Segments cut across the key order (the partitioners other than the ring have no contiguous token
 * ranges), and a scan in key order meets them interleaved, so a segment's hash must not depend on the
 * order its entries arrive in: it is the wrapping sum of its entries' hashes, each a hash of (key,
 * timestamp, tombstone or the value's hash) seeded apart from placement: two values of one timestamp
 * differ. A sum, unlike an exclusive or, still changes if
 * one entry were counted twice. A node above the segments hashes its two children.
 *
 * <p>Filled by one thread ({@link #add}, then {@link #seal}); read-only and safe to share afterwards.
 */
final class SegmentTree {
    /** Deepest tree a peer builds: 2^20 segments, 16 MiB. */
    static final int MAX_DEPTH = 20;
    private static final long ENTRY_SEED = 0x6A09E667F3BCC909L;
    private static final long TOMBSTONE = 0x9E3779B97F4A7C15L;

    private final int depth;
    private final long[] nodes;
    private long entries;

    SegmentTree(int depth) {
        if (depth < 1 || depth > MAX_DEPTH) {
            throw new IllegalArgumentException("tree depth must be in [1, " + MAX_DEPTH + "], got " + depth);
        }
        this.depth = depth;
        this.nodes = new long[2 << depth];
    }

    /** The segment of {@code key} in a tree of {@code depth}. */
    static int segmentOf(byte[] key, int depth) {
        return (int) (KeyHash.hash64(key) >>> (64 - depth));
    }

    /** The hash one entry contributes to its segment. */
    static long entryHash(byte[] key, long timestamp, boolean tombstone, long valueHash) {
        long h = KeyHash.mix(KeyHash.hash64(key, ENTRY_SEED) ^ timestamp);
        return tombstone ? KeyHash.mix(h ^ TOMBSTONE) : KeyHash.mix(h ^ valueHash);
    }

    int depth() {
        return depth;
    }

    /** Entries added so far. */
    long entries() {
        return entries;
    }

    void add(byte[] key, long timestamp, boolean tombstone, long valueHash) {
        nodes[(1 << depth) + segmentOf(key, depth)] += entryHash(key, timestamp, tombstone, valueHash);
        entries++;
    }

    /** Computes the nodes above the segments; call once, after the last {@link #add}. */
    void seal() {
        for (int i = (1 << depth) - 1; i >= 1; i--) {
            nodes[i] = KeyHash.mix(nodes[2 * i] + KeyHash.mix(nodes[2 * i + 1]));
        }
    }

    /**
     * The hash of node {@code index} at {@code level}.
     *
     * @throws IllegalArgumentException for a level outside {@code [0, depth]} or an index outside
     *                                  {@code [0, 2^level)}
     */
    long hash(int level, int index) {
        if (level < 0 || level > depth) {
            throw new IllegalArgumentException("level " + level + " outside [0, " + depth + "]");
        }
        if (index < 0 || index >= 1 << level) {
            throw new IllegalArgumentException("index " + index + " outside [0, " + (1 << level) + ") at level " + level);
        }
        return nodes[(1 << level) + index];
    }
}
