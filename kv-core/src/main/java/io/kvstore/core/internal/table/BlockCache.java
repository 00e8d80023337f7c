package io.kvstore.core.internal.table;

import io.kvstore.core.BlockCacheProperties;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Decompressed data blocks of a store's compressed tables, so that a block read again is not
 * decompressed again (as RocksDB's block cache). Bounded by the bytes of the blocks it holds plus a
 * fixed overhead per block. Blocks of uncompressed tables are read in place from the mapping and
 * never cached. Thread-safe.
 *
 * <p>Each compressed table gets a {@link Table}: an array of slots indexed by block number, so a hit
 * is one array load and one flag, with no hashing, no key object and no list reordered, the
 * bookkeeping that made a general-purpose cache the largest cost of a cached read
 * (docs/BENCHMARKS.md, compression). Eviction is CLOCK (second chance), RocksDB's choice for its
 * HyperClockCache: cached blocks wait in one ring in insertion order; a hit only marks its block;
 * to make room, the ring's hand drops the first unmarked block and unmarks the marked ones it passes.
 * Misses insert and evict under one lock, which hits never take. Bulk readers (compactions, scans)
 * read through the cache without filling it, so CLOCK's weakness, a long scan pushing out the
 * working set, does not arise from them.
 */
public final class BlockCache {
    /** Bytes counted per cached block beyond its contents: its slot, buffer and place in the ring. */
    static final int ENTRY_OVERHEAD = 128;

    private static final BlockCache DISABLED = new BlockCache(0);

    private final long capacityBytes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final ReentrantLock lock = new ReentrantLock();
    /** Cached blocks in clock order, and blocks already dropped from their tables (skipped by the hand). GUARDED_BY(lock) */
    private final ArrayDeque<Slot> ring = new ArrayDeque<>();
    /** Entries of {@link #ring} whose block is no longer cached. GUARDED_BY(lock) */
    private long dropped;
    /** Written under {@link #lock}; volatile for the properties. */
    private volatile long bytes;
    private volatile long blocks;
    private volatile long evictions;

    private BlockCache(long capacityBytes) {
        this.capacityBytes = capacityBytes;
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
        return bytes;
    }

    /** The number of blocks cached now. */
    public long blockCount() {
        return blocks;
    }

    /** Its lookups, evictions and size as the store reports them, read from memory without waiting. */
    public BlockCacheProperties properties() {
        if (capacityBytes == 0) {
            return BlockCacheProperties.OFF;
        }
        return new BlockCacheProperties(hits.sum(), misses.sum(), evictions, bytes, capacityBytes);
    }

    /** The slots of a table of {@code blockCount} data blocks; one that caches nothing if the cache is off. */
    Table newTable(int blockCount) {
        return capacityBytes == 0 ? Table.NONE : new Table(this, blockCount);
    }

    /** Entries in the ring, dropped blocks included (for tests: released tables must not leave it growing). */
    int ringEntries() {
        lock.lock();
        try {
            return ring.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "BlockCache{" + capacityBytes + " bytes}";
    }

    /**
     * Caches {@code block} of {@code table} unless it is cached, the table released or the block heavier
     * than half the cache (to make room for it would push out half the blocks read for one); evicts to
     * stay in bounds.
     */
    private void insert(Table table, int block, ByteBuffer buffer) {
        Slot slot = new Slot(table, block, buffer);
        if (slot.weight > capacityBytes / 2) {
            return;
        }
        lock.lock();
        try {
            if (table.released || table.slots.getPlain(block) != null) {
                return;
            }
            table.slots.setRelease(block, slot);
            ring.addLast(slot);
            bytes += slot.weight;
            blocks++;
            while (bytes > capacityBytes) {
                evictOne();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Moves the hand past marked blocks (unmarking them) and drops the first unmarked one. REQUIRES: lock held. */
    private void evictOne() {
        while (true) {
            Slot slot = ring.pollFirst();
            if (!slot.isCached()) {
                dropped--;
            } else if (slot.referenced) {
                slot.referenced = false;
                ring.addLast(slot);
            } else {
                slot.table.slots.setRelease(slot.block, null);
                bytes -= slot.weight;
                blocks--;
                evictions++;
                return;
            }
        }
    }

    /** Drops every block of {@code table} and takes no more of it. */
    private void release(Table table) {
        lock.lock();
        try {
            table.released = true;
            for (int block = 0; block < table.slots.length(); block++) {
                Slot slot = table.slots.getPlain(block);
                if (slot != null) {
                    table.slots.setRelease(block, null);
                    bytes -= slot.weight;
                    blocks--;
                    dropped++;
                }
            }
            if (dropped > ring.size() / 2) {
                ring.removeIf(slot -> !slot.isCached());
                dropped = 0;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The cached blocks of one table, by block number. */
    static final class Table {
        static final Table NONE = new Table(null, 0);

        private final BlockCache cache;
        private final AtomicReferenceArray<Slot> slots;
        /** GUARDED_BY(cache.lock) */
        private boolean released;

        private Table(BlockCache cache, int blockCount) {
            this.cache = cache;
            this.slots = new AtomicReferenceArray<>(blockCount);
        }

        /**
         * The cached contents of data block {@code block} (counted as a hit), or null: the reader counts a
         * miss with {@link #missed} once it knows the block is one the cache would hold.
         */
        ByteBuffer get(int block) {
            if (cache == null) {
                return null;
            }
            Slot slot = slots.getAcquire(block);
            if (slot == null) {
                return null;
            }
            if (!slot.referenced) {
                slot.referenced = true; // a racy mark: losing one only ages the block a turn early
            }
            cache.hits.increment();
            return slot.buffer;
        }

        /** Counts a miss: a block {@link #get} did not find was decompressed. */
        void missed() {
            if (cache != null) {
                cache.misses.increment();
            }
        }

        /** Caches data block {@code block}, whose buffer readers only read with absolute gets. */
        void put(int block, ByteBuffer buffer) {
            if (cache != null) {
                cache.insert(this, block, buffer);
            }
        }

        /** Drops the table's blocks for good; later puts cache nothing. */
        void release() {
            if (cache != null) {
                cache.release(this);
            }
        }
    }

    /** One cached block and its place in the ring. */
    private static final class Slot {
        final Table table;
        final int block;
        final ByteBuffer buffer;
        final long weight;
        /** Read since the hand last passed. */
        boolean referenced;

        Slot(Table table, int block, ByteBuffer buffer) {
            this.table = table;
            this.block = block;
            this.buffer = buffer;
            this.weight = buffer.capacity() + (long) ENTRY_OVERHEAD;
        }

        boolean isCached() {
            return table.slots.getPlain(block) == this;
        }
    }
}
