package io.kvstore.cluster;

import io.kvstore.core.Entry;

/**
 * Where the coordinator hands a write that a replica refused as sent on an older cluster map
 * ({@link StaleEpochException}). The write may still have been acknowledged by replicas that had not
 * yet learned the newer map, so the refusing replica, and any replica only the newer map names, may
 * lack it: the sink writes it again on the newer map. Must return at once, never block.
 */
@FunctionalInterface
public interface StaleWriteSink {

    /** A replica on the map of {@code newerEpoch} refused the write of {@code entry}. */
    void refused(Entry entry, long newerEpoch);
}
