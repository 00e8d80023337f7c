package io.kvstore.core;

/**
 * What a store does once its disk has failed it: a table block that fails its checksum or cannot be
 * read, or a write or fsync that failed ({@link DaoOptions#diskFailurePolicy()}).
 */
public enum DiskFailurePolicy {
    /**
     * Go on serving what is sound: a damaged table is quarantined and its key interval refused
     * ({@link UnavailableIntervalException}) while every other key is served; a failed write stops
     * writes only. For a replica whose peers can refill what it lost.
     */
    KEEP_SERVING,
    /**
     * Stop serving at the first disk error: every read and write fails from then on, naming the error,
     * until the store is reopened. For an operator who would rather replace a node than run it on a
     * disk that has begun to fail.
     */
    STOP
}
