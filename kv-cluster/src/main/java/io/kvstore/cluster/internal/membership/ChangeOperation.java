package io.kvstore.cluster.internal.membership;

import java.util.Locale;

/** What a change of the cluster map does to one node. */
public enum ChangeOperation {
    /** A new node enters as {@code joining} and becomes {@code normal} once it holds its keys. */
    JOIN,
    /** A live node is {@code leaving} while its keys are handed on, then leaves the map. */
    DECOMMISSION,
    /** A dead node is {@code leaving} while its surviving replicas hand its keys on, then leaves the map. */
    REMOVE;

    /** The name on the wire and in the change list: {@code join}, {@code decommission}, {@code remove}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The operation named {@code id}.
     *
     * @throws ChangeRefusedException 400 for any other name
     */
    public static ChangeOperation parse(String id) {
        for (ChangeOperation operation : values()) {
            if (operation.id().equals(id)) {
                return operation;
            }
        }
        throw new ChangeRefusedException(400, "unknown operation '" + id + "'; expected join, decommission or remove");
    }
}
