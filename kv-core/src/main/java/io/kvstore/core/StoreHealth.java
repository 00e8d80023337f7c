package io.kvstore.core;

import java.util.List;

/**
 * What a store knows of damage to its files, read from memory so that a caller that must not block
 * may ask: the key intervals it refuses, and whether it stopped serving under
 * {@link DiskFailurePolicy#STOP}, and how far its scrubs got.
 *
 * @param quarantined the intervals refused because a table of them was damaged, oldest first; they
 *                    outlive a restart until {@linkplain Dao#healInterval healed}
 * @param stoppedBy   why the store stopped serving (the disk error, named), or null while it serves
 * @param scrub       the scrub pass under way, or else the last one, background or asked for; null if none
 *                    ran since the store opened
 * @param scrubbedBytes bytes of tables all scrubs have checked since the store opened
 */
public record StoreHealth(List<QuarantinedInterval> quarantined, String stoppedBy, ScrubReport scrub,
                          long scrubbedBytes) {
    /** The answer of an engine that does not watch for damage. */
    public static final StoreHealth UNKNOWN = new StoreHealth(List.of(), null, null, 0);

    public StoreHealth {
        quarantined = List.copyOf(quarantined);
    }

    /** Whether the store stopped serving after a disk error. */
    public boolean stopped() {
        return stoppedBy != null;
    }
}
