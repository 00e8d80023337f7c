package io.kvstore.cluster;

import java.util.Locale;

/** What a GET does when the answers of its replicas disagree (see {@link ReplicationOptions#readRepair()}). */
public enum ReadRepair {
    /**
     * Writes the newest version to the replicas that answered with an older one or none, and answers only
     * once it is on {@code ack} replicas: a value one quorum read returned, every later one returns.
     */
    BLOCKING,
    /** Answers at once and repairs the stale replicas in the background. */
    ASYNC,
    /** Leaves the replicas as they are (hints and anti-entropy still converge them). */
    OFF;

    /** The flag value: {@code blocking}, {@code async} or {@code off}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for anything but {@code blocking}, {@code async} or {@code off} */
    public static ReadRepair fromId(String id) {
        for (ReadRepair mode : values()) {
            if (mode.id().equals(id)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown read repair mode '" + id + "': expected blocking, async or off");
    }
}
