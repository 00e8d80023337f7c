package io.kvstore.cluster.membership;

import java.util.Objects;

/** A node of the cluster map: its base URL and its state. */
public record Member(String url, NodeState state) {
    public Member {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(state, "state");
        if (url.isEmpty()) {
            throw new IllegalArgumentException("empty node URL");
        }
    }
}
