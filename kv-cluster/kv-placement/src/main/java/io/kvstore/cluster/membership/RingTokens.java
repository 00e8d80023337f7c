package io.kvstore.cluster.membership;

import java.util.Locale;

/** Where the {@code ring} partitioner's tokens come from, a parameter of the cluster map. */
public enum RingTokens {
    /**
     * Each node's tokens are hashes of its URL ({@code url#0}, {@code url#1}, ...): nothing to keep, and a
     * client rebuilds the ring from the node list, but a balance that needs many tokens per node.
     */
    RANDOM,
    /**
     * A node's tokens are chosen when it enters the map, by the token allocator,
     * to even out the nodes' replicated ownership, and kept in the map with it.
     */
    ALLOCATED;

    /** The lower-case name used on the command line. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for an unknown name */
    public static RingTokens parse(String id) {
        for (RingTokens choice : values()) {
            if (choice.id().equals(id)) {
                return choice;
            }
        }
        throw new IllegalArgumentException("unknown ring tokens '" + id + "'; expected random or allocated");
    }
}
