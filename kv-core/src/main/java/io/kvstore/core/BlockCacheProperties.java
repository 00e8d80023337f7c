package io.kvstore.core;

/**
 * What a store's block cache has done since the store opened, and what it holds now. A lookup is
 * one read of a data block of a compressed table, by a point read, a range scan or a compaction;
 * uncompressed tables are read in place and never ask the cache, and a cache that is off counts nothing. A value an engine does not know is {@code -1}.
 *
 * @param hits          lookups that found the decompressed block in the cache
 * @param misses        lookups that did not, and decompressed the block
 * @param evictions     blocks the cache dropped to stay within its capacity
 * @param bytes         bytes the cached blocks count for now, a fixed overhead per block included
 * @param capacityBytes the bound on {@code bytes} (0: the cache is off)
 */
public record BlockCacheProperties(long hits, long misses, long evictions, long bytes, long capacityBytes) {

    /** The answer of an engine that does not know its block cache. */
    public static final BlockCacheProperties UNKNOWN = new BlockCacheProperties(-1, -1, -1, -1, -1);

    /** The answer of a cache that is off. */
    public static final BlockCacheProperties OFF = new BlockCacheProperties(0, 0, 0, 0, 0);
}
