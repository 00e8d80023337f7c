package io.kvstore.cluster.membership;

import java.util.Locale;

/** Where a node stands in the cluster map. */
public enum NodeState {
    /** Receives the writes of the ranges it will own and the streams of their data; serves no reads yet. */
    JOINING,
    /** Owns its ranges: reads and writes. */
    NORMAL,
    /** Still owns its ranges while it streams them to the nodes that gain them. */
    LEAVING;

    /** The lower-case name used in the map's JSON form. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for an unknown name */
    public static NodeState parse(String id) {
        for (NodeState state : values()) {
            if (state.id().equals(id)) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown node state '" + id + "'; expected joining, normal or leaving");
    }
}
