package io.kvstore.cluster.internal;

import java.util.Arrays;
import java.util.List;

/**
 * A ring of tokens under construction, for {@link TokenAllocator}: the tokens in signed order with the
 * index of their node, and each node's <em>replicated ownership</em>, the share of the hash space for
 * which it is one of the first {@code replicas} distinct nodes met walking clockwise from a key's
 * hash (the ring partitioner's preference list). Range {@code i} is the hashes in
 * {@code (token[i-1], token[i]]}, wrapping around before token 0.
 */
final class TokenRing {
    /** The size of the hash space: 2^64. */
    static final double SPAN = 0x1p64;

    private long[] tokens;
    private int[] owners;
    private int count;
    private final int replicas;
    private final double[] ownership;
    private final double[] primaryOwnership;
    /** Per range, its preference list in walk order: {@code replicas} entries from {@code range * replicas}. */
    private int[] preferences = new int[0];

    /**
     * @param placed   per node (its index in the list), its tokens; they must be distinct
     * @param nodes    node indexes the ring may hold, at least {@code placed.size()}
     * @param replicas how many distinct nodes share each range
     */
    TokenRing(List<long[]> placed, int nodes, int replicas) {
        int total = 0;
        for (long[] nodeTokens : placed) {
            total += nodeTokens.length;
        }
        long[][] pairs = new long[total][];
        int next = 0;
        for (int node = 0; node < placed.size(); node++) {
            for (long token : placed.get(node)) {
                pairs[next++] = new long[] {token, node};
            }
        }
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        this.tokens = new long[Math.max(16, total * 2)];
        this.owners = new int[tokens.length];
        for (int i = 0; i < total; i++) {
            if (i > 0 && pairs[i][0] == pairs[i - 1][0]) {
                throw new IllegalArgumentException("token " + pairs[i][0] + " is held by nodes #" + pairs[i - 1][1]
                        + " and #" + pairs[i][1]);
            }
            tokens[i] = pairs[i][0];
            owners[i] = (int) pairs[i][1];
        }
        this.count = total;
        this.replicas = replicas;
        this.ownership = new double[nodes];
        this.primaryOwnership = new double[nodes];
        recomputeOwnership();
    }

    int size() {
        return count;
    }

    long token(int index) {
        return tokens[index];
    }

    int owner(int index) {
        return owners[index];
    }

    int replicas() {
        return replicas;
    }

    /** The replicated ownership of {@code node}, as a fraction of the hash space. */
    double ownership(int node) {
        return ownership[node];
    }

    /** The share of the hash space for which {@code node} is the first replica. */
    double primaryOwnership(int node) {
        return primaryOwnership[node];
    }

    /** The width of range {@code index}, {@code (token[index-1], token[index]]}, in hashes (unsigned). */
    long widthInHashes(int index) {
        return tokens[index] - tokens[previous(index)];
    }

    /** The width of range {@code index} as a fraction of the hash space; one token spans all of it. */
    double width(int index) {
        return count == 1 ? 1.0 : unsignedToDouble(widthInHashes(index)) / SPAN;
    }

    int previous(int index) {
        return index == 0 ? count - 1 : index - 1;
    }

    /** Whether {@code node} is in the preference list of range {@code index}. */
    boolean replicatedBy(int index, int node) {
        int from = index * replicas;
        for (int i = from; i < from + replicas; i++) {
            if (preferences[i] == node) {
                return true;
            }
        }
        return false;
    }

    /** The last node of the preference list of range {@code index}, the one a new replica pushes out. */
    int lastReplica(int index) {
        return preferences[index * replicas + replicas - 1];
    }

    /**
     * Writes into {@code out} the distinct nodes met walking clockwise from token {@code start}; returns
     * how many it found: {@code replicas}, or fewer if the ring holds fewer nodes.
     */
    private int walk(int start, int[] out) {
        int found = 0;
        int position = start;
        for (int step = 0; step < count && found < replicas; step++) {
            int owner = owners[position];
            position = position + 1 == count ? 0 : position + 1;
            if (!contains(out, found, owner)) {
                out[found++] = owner;
            }
        }
        return found;
    }

    /** Inserts {@code token} of {@code owner} at {@code index} (it must fall in range {@code index}) and recomputes ownership. */
    void insert(int index, long token, int owner) {
        if (count == tokens.length) {
            tokens = Arrays.copyOf(tokens, count * 2);
            owners = Arrays.copyOf(owners, count * 2);
        }
        System.arraycopy(tokens, index, tokens, index + 1, count - index);
        System.arraycopy(owners, index, owners, index + 1, count - index);
        tokens[index] = token;
        owners[index] = owner;
        count++;
        recomputeOwnership();
    }

    private void recomputeOwnership() {
        Arrays.fill(ownership, 0);
        Arrays.fill(primaryOwnership, 0);
        if (preferences.length < count * replicas) {
            preferences = new int[tokens.length * replicas];
        }
        int[] set = new int[replicas];
        for (int range = 0; range < count; range++) {
            double width = width(range);
            primaryOwnership[owners[range]] += width;
            int found = walk(range, set);
            for (int i = 0; i < found; i++) {
                ownership[set[i]] += width;
            }
            // Short only on a ring of fewer nodes than replicas, which the allocator never builds.
            System.arraycopy(set, 0, preferences, range * replicas, found);
        }
    }

    static boolean contains(int[] set, int size, int node) {
        for (int i = 0; i < size; i++) {
            if (set[i] == node) {
                return true;
            }
        }
        return false;
    }

    static double unsignedToDouble(long value) {
        return value >= 0 ? value : (value >>> 1) * 2.0 + (value & 1);
    }
}
