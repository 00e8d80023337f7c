package io.kvstore.cluster;

import io.kvstore.cluster.internal.TokenAllocator;
import java.util.List;
import java.util.Locale;

/**
 * Creates partitioners by name. Three lines from a node list to the replicas of a key:
 *
 * <pre>{@code
 * Partitioner partitioner = Partitioners.create("ring", List.of("http://a:8080", "http://b:8080", "http://c:8080"));
 * int[] replicas = partitioner.replicas("user:42".getBytes(StandardCharsets.UTF_8), 2);
 * String primaryNode = partitioner.nodes().get(replicas[0]);
 * }</pre>
 *
 * <p>Names (case-insensitive): {@code ring} (consistent hashing with virtual nodes), {@code rendezvous}
 * (highest random weight), {@code modn} (hash mod N, a baseline), {@code jump} (Lamping &amp; Veach jump
 * consistent hash) and {@code maglev} (Maglev lookup table). Every one hashes keys with
 * {@link KeyHash#hash64(byte[])} and is deterministic across processes: the same name and node list
 * give the same placement everywhere. {@link #ring(List, List)} makes a {@code ring} over tokens chosen
 * elsewhere, such as those {@link TokenAllocator} allocates and the cluster map keeps.
 */
public final class Partitioners {
    /** Virtual nodes per node of the {@code ring} partitioner unless told otherwise. */
    public static final int DEFAULT_VIRTUAL_NODES = 256;
    /** The most tokens a {@code ring} may hold: past it the ring stops fitting comfortably in cache (and memory). */
    public static final int MAX_RING_TOKENS = 1 << 24;

    private static final List<String> NAMES = List.of("ring", "rendezvous", "modn", "jump", "maglev");

    private Partitioners() {
    }

    /** The names {@link #create(String, List)} accepts, in a stable order. */
    public static List<String> names() {
        return NAMES;
    }

    /** Same as {@link #create(String, List, int)} with {@value #DEFAULT_VIRTUAL_NODES} virtual nodes. */
    public static Partitioner create(String name, List<String> nodes) {
        return create(name, nodes, DEFAULT_VIRTUAL_NODES);
    }

    /**
     * Creates the partitioner called {@code name} over {@code nodes} (distinct, non-empty names, in the
     * same order on every node of the cluster).
     *
     * @param virtualNodesPerNode tokens per node on the {@code ring}; validated for every algorithm,
     *                            used only by {@code ring}
     * @throws IllegalArgumentException for an unknown name, no nodes, a null/empty/duplicate node or
     *                                  {@code virtualNodesPerNode < 1}
     */
    public static Partitioner create(String name, List<String> nodes, int virtualNodesPerNode) {
        if (virtualNodesPerNode < 1) {
            throw new IllegalArgumentException("virtual nodes per node must be >= 1, got " + virtualNodesPerNode);
        }
        if (name == null) {
            throw new IllegalArgumentException("partitioner name is null; expected one of " + NAMES);
        }
        switch (name.toLowerCase(Locale.ROOT)) {
            case "ring":
                return new RingPartitioner(nodes, virtualNodesPerNode);
            case "rendezvous":
                return new RendezvousPartitioner(nodes);
            case "modn":
                return new ModNPartitioner(nodes);
            case "jump":
                return new JumpPartitioner(nodes);
            case "maglev":
                return new MaglevPartitioner(nodes);
            default:
                throw new IllegalArgumentException("unknown partitioner '" + name + "'; expected one of " + NAMES);
        }
    }

    /**
     * A {@code ring} partitioner over {@code nodes} where node {@code i} holds the tokens
     * {@code tokens.get(i)} (signed 64-bit positions on the ring of key hashes), for example those
     * {@link TokenAllocator} chose. A key belongs to the first token at or after its hash.
     *
     * @throws IllegalArgumentException for a bad node list (as {@link #create(String, List, int)}), a
     *                                  token list per node missing or empty, or too many tokens
     */
    public static Partitioner ring(List<String> nodes, List<long[]> tokens) {
        return new RingPartitioner(nodes, tokens);
    }

    /** The tokens {@code node} holds on a {@code ring} with random tokens: hashes of its name, {@code name#0 ...}. */
    public static long[] hashedRingTokens(String node, int virtualNodes) {
        if (virtualNodes < 1) {
            throw new IllegalArgumentException("virtual nodes per node must be >= 1, got " + virtualNodes);
        }
        return RingPartitioner.hashedTokens(node, virtualNodes);
    }
}
