package io.kvstore.core.internal.table;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import io.kvstore.core.BlockCacheProperties;

import java.nio.ByteBuffer;

/**
 * Decompressed data blocks of a store's compressed tables, so that a block read again is not
 * decompressed again (as RocksDB's block cache). Bounded by the bytes of the blocks it holds plus a
 * fixed overhead per block; evicted by Caffeine's policy (recency and frequency); keyed by table file
 * number and block offset, so a block is never confused with one of another table. A table drops its
 * blocks when its last reference is released. Blocks of uncompressed tables are read in place from
 * the mapping and never cached. Thread-safe.
 */
public final class BlockCache {
    /** Bytes counted per cached block beyond its contents: key, buffer and the cache's node. */
    static final int ENTRY_OVERHEAD = 128;

    private static final BlockCache DISABLED = new BlockCache(0);

    private final long capacityBytes;
    private final Cache<Key, ByteBuffer> blocks;

    private BlockCache(long capacityBytes) {
        this.capacityBytes = capacityBytes;
        this.blocks = capacityBytes == 0 ? null : Caffeine.newBuilder()
                .maximumWeight(capacityBytes)
                .weigher((Key key, ByteBuffer block) -> block.capacity() + ENTRY_OVERHEAD)
                // Evict on the thread that inserts, so the bound holds without a background pool.
                .executor(Runnable::run)
                // Striped counters: a lookup adds to one cell, so reads on many threads do not contend.
                .recordStats()
                .build();
    }

    /** A cache of at most {@code capacityBytes}; 0 caches nothing. */
    public static BlockCache ofCapacity(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("block cache capacity must be >= 0 (0: off), got " + capacityBytes);
        }
        return capacityBytes == 0 ? DISABLED : new BlockCache(capacityBytes);
    }

    /** A cache that holds nothing. */
    public static BlockCache disabled() {
        return DISABLED;
    }

    /** The bound in bytes given at creation (0: off). */
    public long capacityBytes() {
        return capacityBytes;
    }

    /** The bytes the cached blocks count for now, overhead included; never above {@link #capacityBytes()}. */
    public long weightBytes() {
        if (blocks == null) {
            return 0;
        }
        blocks.cleanUp();
        return blocks.policy().eviction().orElseThrow().weightedSize().orElse(0);
    }

    /** The number of blocks cached now. */
    public long blockCount() {
        if (blocks == null) {
            return 0;
        }
        blocks.cleanUp();
        return blocks.estimatedSize();
    }

    /**
     * Its lookups, evictions and size as the store reports them: from memory, though reading the size
     * may wait for a thread that is evicting to finish.
     */
    public BlockCacheProperties properties() {
        if (blocks == null) {
            return BlockCacheProperties.OFF;
        }
        CacheStats stats = blocks.stats();
        long bytes = blocks.policy().eviction().orElseThrow().weightedSize().orElse(0);
        return new BlockCacheProperties(stats.hitCount(), stats.missCount(), stats.evictionCount(), bytes, capacityBytes);
    }

    /** The cached block at {@code offset} of table {@code fileNumber}, or null. */
    ByteBuffer get(long fileNumber, long offset) {
        return blocks == null ? null : blocks.getIfPresent(new Key(fileNumber, offset));
    }

    /** Caches a decompressed block, whose buffer readers only read with absolute gets. */
    void put(long fileNumber, long offset, ByteBuffer block) {
        if (blocks != null) {
            blocks.put(new Key(fileNumber, offset), block);
        }
    }

    /** Forgets the block at {@code offset} of table {@code fileNumber}. */
    void remove(long fileNumber, long offset) {
        if (blocks != null) {
            blocks.invalidate(new Key(fileNumber, offset));
        }
    }

    /** Forgets every block of table {@code fileNumber}; a walk over the cache, done once per table. */
    void removeTable(long fileNumber) {
        if (blocks != null) {
            blocks.asMap().keySet().removeIf(key -> key.fileNumber == fileNumber);
        }
    }

    @Override
    public String toString() {
        return "BlockCache{" + capacityBytes + " bytes}";
    }

    private record Key(long fileNumber, long offset) {
    }
}
