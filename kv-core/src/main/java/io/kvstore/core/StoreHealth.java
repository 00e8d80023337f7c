package io.kvstore.core;

import java.util.List;

/**
 * What a store knows of damage to its files, read from memory so that a caller that must not block
 * may ask: the key intervals it refuses, and whether it stopped serving under
 * {@link DiskFailurePolicy#STOP}.
 *
 * @param quarantined the intervals refused because a table of them was damaged, oldest first; they
 *                    outlive a restart until {@linkplain Dao#healInterval healed}
 * @param stoppedBy   why the store stopped serving (the disk error, named), or null while it serves
 */
public record StoreHealth(List<QuarantinedInterval> quarantined, String stoppedBy) {
    /** The answer of an engine that does not watch for damage. */
    public static final StoreHealth UNKNOWN = new StoreHealth(List.of(), null);

    public StoreHealth {
        quarantined = List.copyOf(quarantined);
    }

    /** Whether the store stopped serving after a disk error. */
    public boolean stopped() {
        return stoppedBy != null;
    }
}
