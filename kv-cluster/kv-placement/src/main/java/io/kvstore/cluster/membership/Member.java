package io.kvstore.cluster.membership;

import java.util.List;
import java.util.Objects;

/**
 * A node of the cluster map: its base URL (a {@link NodeUrl}), its state, and its ring tokens when the map allocates them
 * (empty when its tokens are hashed from its URL, or the partitioner has none).
 */
public record Member(String url, NodeState state, List<Long> tokens) {
    public Member {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(state, "state");
        tokens = List.copyOf(Objects.requireNonNull(tokens, "tokens"));
        NodeUrl.parse(url);
    }

    /** A node without tokens of its own. */
    public Member(String url, NodeState state) {
        this(url, state, List.of());
    }

    /** This node in another state, with the same tokens. */
    public Member withState(NodeState next) {
        return new Member(url, next, tokens);
    }

    /** The tokens as a primitive array, for building a ring. */
    long[] tokenArray() {
        long[] array = new long[tokens.size()];
        for (int i = 0; i < array.length; i++) {
            array[i] = tokens.get(i);
        }
        return array;
    }
}
