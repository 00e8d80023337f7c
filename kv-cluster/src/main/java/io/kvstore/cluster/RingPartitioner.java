package io.kvstore.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Consistent hashing on a ring of 64-bit tokens with virtual nodes.
 *
 * <p>Node {@code i} owns {@code vnodes} tokens, {@code KeyHash.hash64(utf8(name + "#" + v))} for
 * {@code v = 0 .. vnodes-1}. The tokens sit in one sorted {@code long[]} (signed order) with the owning
 * node index at the same position of an {@code int[]}; equal tokens are ordered by node index, so the
 * ring is the same on every JVM. A key hashing to {@code h} belongs to the first token {@code >= h},
 * wrapping around after the largest one; the lookup is a binary search without allocation.
 *
 * <p>Replicas beyond the first: walk clockwise from the key's token and take each node not taken yet
 * (the classic Dynamo "preference list"). When a node joins or leaves, only the keys next to its
 * tokens change owner: about {@code 1/(n+1)} of them.
 */
final class RingPartitioner extends AbstractPartitioner {
    /** Past this many tokens the ring stops fitting comfortably in cache (and memory). */
    static final int MAX_TOKENS = 1 << 24;

    private final int virtualNodesPerNode;
    private final long[] tokens;
    private final int[] owners;

    RingPartitioner(List<String> nodes, int virtualNodesPerNode) {
        super("ring", nodes);
        if (virtualNodesPerNode < 1) {
            throw new IllegalArgumentException("ring partitioner: virtual nodes per node must be >= 1, got "
                    + virtualNodesPerNode);
        }
        if ((long) virtualNodesPerNode * size > MAX_TOKENS) {
            throw new IllegalArgumentException("ring partitioner: " + size + " nodes x " + virtualNodesPerNode
                    + " virtual nodes exceeds the limit of " + MAX_TOKENS + " tokens");
        }
        this.virtualNodesPerNode = virtualNodesPerNode;
        int total = size * virtualNodesPerNode;
        long[] unsortedTokens = new long[total];
        int[] unsortedOwners = new int[total];
        for (int node = 0; node < size; node++) {
            String name = nodes.get(node);
            for (int v = 0; v < virtualNodesPerNode; v++) {
                int slot = node * virtualNodesPerNode + v;
                unsortedTokens[slot] = KeyHash.hash64((name + "#" + v).getBytes(StandardCharsets.UTF_8));
                unsortedOwners[slot] = node;
            }
        }
        // Construction only: boxing the permutation is fine here, never on the lookup path.
        Integer[] order = new Integer[total];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> {
            int byToken = Long.compare(unsortedTokens[a], unsortedTokens[b]);
            return byToken != 0 ? byToken : Integer.compare(unsortedOwners[a], unsortedOwners[b]);
        });
        this.tokens = new long[total];
        this.owners = new int[total];
        for (int i = 0; i < total; i++) {
            tokens[i] = unsortedTokens[order[i]];
            owners[i] = unsortedOwners[order[i]];
        }
    }

    @Override
    public int primary(byte[] key) {
        return owners[firstTokenAtOrAfter(KeyHash.hash64(key))];
    }

    @Override
    void fillReplicas(byte[] key, int count, int[] out) {
        int position = firstTokenAtOrAfter(KeyHash.hash64(key));
        int filled = 0;
        for (int step = 0; step < tokens.length && filled < count; step++) {
            int owner = owners[position];
            if (!contains(out, filled, owner)) {
                out[filled++] = owner;
            }
            position = position + 1 == tokens.length ? 0 : position + 1;
        }
    }

    /** The index of the first token {@code >= hash}, or 0 when the hash is past the last token. */
    private int firstTokenAtOrAfter(long hash) {
        int low = 0;
        int high = tokens.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (tokens[middle] < hash) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low == tokens.length ? 0 : low;
    }

    @Override
    public String toString() {
        return "ring(" + virtualNodesPerNode + " vnodes)" + nodes();
    }
}
