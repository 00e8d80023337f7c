package io.kvstore.cluster;

import io.kvstore.cluster.internal.ArcPlacement;
import io.kvstore.cluster.internal.TokenAllocator;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Consistent hashing on a ring of 64-bit tokens with virtual nodes.
 *
 * <p>Node {@code i} owns {@code vnodes} tokens, {@code KeyHash.hash64(utf8(name + "#" + v))} for
 * {@code v = 0 .. vnodes-1}, or the tokens it was given (those {@link TokenAllocator} chose for it when
 * it joined, kept in the cluster map). The tokens sit in one sorted {@code long[]} (signed order) with the owning
 * node index at the same position of an {@code int[]}; equal tokens are ordered by node index, so the
 * ring is the same on every JVM. A key hashing to {@code h} belongs to the first token {@code >= h},
 * wrapping around after the largest one. The lookup does not allocate: the top bits of the hash index a
 * table of where each range of hashes starts among the tokens ({@code 2^k} ranges for about as many
 * tokens), which leaves a scan of one or two tokens; a plain binary search would take ~15 dependent,
 * mostly mispredicted steps over 25,600 tokens.
 *
 * <p>Replicas beyond the first: walk clockwise from the key's token and take each node not taken yet
 * (the classic Dynamo "preference list"). When a node joins or leaves, only the keys next to its
 * tokens change owner: about {@code 1/(n+1)} of them.
 */
final class RingPartitioner extends AbstractPartitioner implements ArcPlacement {
    /** Past this many tokens the ring stops fitting comfortably in cache (and memory). */
    static final int MAX_TOKENS = Partitioners.MAX_RING_TOKENS;
    /** Caps the range table at 4 MiB. */
    private static final int MAX_RANGE_BITS = 20;

    /** How the tokens were made, for {@link #toString()}. */
    private final String tokenSource;
    private final long[] tokens;
    private final int[] owners;
    /** {@code 64 - k}: a hash's range is its top {@code k} bits, taken in signed order. */
    private final int rangeShift;
    /** {@code rangeStart[r]}: index of the first token in range {@code r} or above; {@code 2^k + 1} entries. */
    private final int[] rangeStart;

    /** A ring whose node {@code i} holds the tokens {@code hash64(utf8(name + "#" + v))}, {@code v < virtualNodesPerNode}. */
    RingPartitioner(List<String> nodes, int virtualNodesPerNode) {
        this(nodes, hashedTokens(nodes, virtualNodesPerNode), virtualNodesPerNode + " vnodes");
    }

    /** A ring whose node {@code i} holds {@code tokensPerNode.get(i)} (chosen by {@link TokenAllocator}, say). */
    RingPartitioner(List<String> nodes, List<long[]> tokensPerNode) {
        this(nodes, tokensPerNode == null ? null : tokensPerNode.toArray(new long[0][]), "given tokens");
    }

    private RingPartitioner(List<String> nodes, long[][] tokensPerNode, String tokenSource) {
        super("ring", nodes);
        this.tokenSource = tokenSource;
        if (tokensPerNode == null || tokensPerNode.length != size) {
            throw new IllegalArgumentException("ring partitioner: " + size + " nodes need " + size + " token lists, got "
                    + (tokensPerNode == null ? "none" : tokensPerNode.length));
        }
        long total = 0;
        for (int node = 0; node < size; node++) {
            if (tokensPerNode[node] == null || tokensPerNode[node].length == 0) {
                throw new IllegalArgumentException("ring partitioner: node " + nodes.get(node) + " has no tokens");
            }
            total += tokensPerNode[node].length;
        }
        if (total > MAX_TOKENS) {
            throw new IllegalArgumentException("ring partitioner: " + total + " tokens exceed the limit of " + MAX_TOKENS);
        }
        int count = (int) total;
        long[] unsortedTokens = new long[count];
        int[] unsortedOwners = new int[count];
        int slot = 0;
        for (int node = 0; node < size; node++) {
            for (long token : tokensPerNode[node]) {
                unsortedTokens[slot] = token;
                unsortedOwners[slot++] = node;
            }
        }
        // Construction only: boxing the permutation is fine here, never on the lookup path.
        Integer[] order = new Integer[count];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> {
            int byToken = Long.compare(unsortedTokens[a], unsortedTokens[b]);
            return byToken != 0 ? byToken : Integer.compare(unsortedOwners[a], unsortedOwners[b]);
        });
        this.tokens = new long[count];
        this.owners = new int[count];
        for (int i = 0; i < count; i++) {
            tokens[i] = unsortedTokens[order[i]];
            owners[i] = unsortedOwners[order[i]];
        }
        int rangeBits = Math.min(MAX_RANGE_BITS, Math.max(1, 32 - Integer.numberOfLeadingZeros(count - 1)));
        this.rangeShift = 64 - rangeBits;
        this.rangeStart = new int[(1 << rangeBits) + 1];
        int token = 0;
        for (int range = 0; range < rangeStart.length; range++) {
            while (token < count && rangeOf(tokens[token]) < range) {
                token++;
            }
            rangeStart[range] = token;
        }
    }

    /**
     * The hashed tokens of each node, or {@code null} for a node list that the superclass refuses anyway
     * (so that its message, not a NullPointerException, is what the caller sees).
     */
    private static long[][] hashedTokens(List<String> nodes, int virtualNodesPerNode) {
        if (virtualNodesPerNode < 1) {
            throw new IllegalArgumentException("ring partitioner: virtual nodes per node must be >= 1, got "
                    + virtualNodesPerNode);
        }
        if (nodes == null) {
            return null;
        }
        for (String node : nodes) {
            if (node == null) {
                return null;
            }
        }
        if ((long) virtualNodesPerNode * nodes.size() > MAX_TOKENS) {
            throw new IllegalArgumentException("ring partitioner: " + nodes.size() + " nodes x " + virtualNodesPerNode
                    + " virtual nodes exceeds the limit of " + MAX_TOKENS + " tokens");
        }
        long[][] tokens = new long[nodes.size()][];
        for (int node = 0; node < tokens.length; node++) {
            tokens[node] = hashedTokens(nodes.get(node), virtualNodesPerNode);
        }
        return tokens;
    }

    /** The tokens of node {@code name} on a ring of {@code virtualNodesPerNode} hashed virtual nodes. */
    static long[] hashedTokens(String name, int virtualNodesPerNode) {
        long[] tokens = new long[virtualNodesPerNode];
        for (int v = 0; v < virtualNodesPerNode; v++) {
            tokens[v] = KeyHash.hash64((name + "#" + v).getBytes(StandardCharsets.UTF_8));
        }
        return tokens;
    }

    @Override
    public int primary(byte[] key) {
        return nodeOfHash(KeyHash.hash64(key));
    }

    /** The node owning the first token at or after {@code hash}, wrapping around. */
    int nodeOfHash(long hash) {
        return owners[firstTokenAtOrAfter(hash)];
    }

    @Override
    void fillReplicas(byte[] key, int count, int[] out) {
        fillReplicasOfHash(KeyHash.hash64(key), count, out);
    }

    @Override
    public long[] tokens() {
        return tokens.clone();
    }

    @Override
    public int[] replicasOfHash(long hash, int count, int[] out) {
        if (count < 1 || count > size || out.length < count) {
            throw new IllegalArgumentException("ring partitioner: cannot place " + count + " replicas of " + size
                    + " nodes into an array of " + out.length);
        }
        fillReplicasOfHash(hash, count, out);
        return out;
    }

    private void fillReplicasOfHash(long hash, int count, int[] out) {
        int position = firstTokenAtOrAfter(hash);
        int filled = 0;
        for (int step = 0; step < tokens.length && filled < count; step++) {
            if (filled == size - 1) {
                out[filled] = lastMissingNode(out);
                return;
            }
            int owner = owners[position];
            if (!contains(out, filled, owner)) {
                out[filled++] = owner;
            }
            position = position + 1 == tokens.length ? 0 : position + 1;
        }
    }

    /** The index of the first token {@code >= hash}, or 0 when the hash is past the last token. */
    private int firstTokenAtOrAfter(long hash) {
        int range = rangeOf(hash);
        int index = rangeStart[range];
        int end = rangeStart[range + 1];
        // Tokens before rangeStart[range] are below this range, tokens from `end` on are above it.
        while (index < end && tokens[index] < hash) {
            index++;
        }
        return index == tokens.length ? 0 : index;
    }

    /** The top bits of a hash, flipped so that signed order of hashes is the order of ranges. */
    private int rangeOf(long hash) {
        return (int) ((hash ^ Long.MIN_VALUE) >>> rangeShift);
    }

    @Override
    public String toString() {
        return "ring(" + tokenSource + ")" + nodes();
    }
}
