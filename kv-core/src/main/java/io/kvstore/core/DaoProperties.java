package io.kvstore.core;

import java.util.List;
import java.util.Objects;

/**
 * What a store holds and what it has done since it opened, read from memory without touching the disk,
 * so that a caller that must not block (an event loop serving a status page or a metrics scrape) may
 * ask. Sizes and counts are a moment's view; the counters ({@link DaoStats}) only grow while the store
 * is open. A value an engine does not know is {@code -1}.
 *
 * @param memtableBytes      bytes of the memtables in memory, the active one and those waiting to be flushed
 * @param frozenMemtables    memtables waiting to be flushed
 * @param tableBytes         bytes of the live table files
 * @param tableEntries       entries in the live tables: versions and tombstones, so a key written twice may count
 *                           twice (RocksDB: its estimate of the number of keys)
 * @param tablesPerLevel     live tables in each level, level 0 first (a size-tiered engine has one level)
 * @param compactionsPending compactions the engine would run now if it could
 * @param compactionDebtBytes bytes compaction has yet to move down before every level is within its limit
 *                           (RocksDB: its estimate of pending compaction bytes); writers are slowed in
 *                           proportion to it past a soft limit
 * @param flushes            memtables written to tables
 * @param flushedBytes       bytes those flushes wrote
 * @param compactions        compactions installed
 * @param compactedBytes     bytes those compactions wrote
 * @param backgroundErrors   background flushes and compactions that failed, each logged with its cause (a
 *                           compaction asked for, {@link Dao#compact()}, throws instead)
 * @param writeStalls        writes that waited for flushes, or level 0 compactions, to catch up
 * @param writeStallNanos    time those writes waited
 * @param walSyncs           times the write-ahead log was forced to the device
 * @param bloomNegatives     table lookups a Bloom filter answered without reading a block
 * @param blockCache         the block cache's hits, misses, evictions and size
 */
public record DaoProperties(long memtableBytes, int frozenMemtables, long tableBytes, long tableEntries, List<Integer> tablesPerLevel,
                            int compactionsPending, long compactionDebtBytes, long flushes, long flushedBytes, long compactions,
                            long compactedBytes, long backgroundErrors, long writeStalls, long writeStallNanos, long walSyncs,
                            long bloomNegatives, BlockCacheProperties blockCache) {

    /** The answer of an engine that keeps no properties. */
    public static final DaoProperties UNKNOWN = new DaoProperties(-1, -1, -1, -1, List.of(), -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
            BlockCacheProperties.UNKNOWN);

    public DaoProperties {
        tablesPerLevel = List.copyOf(tablesPerLevel);
        Objects.requireNonNull(blockCache, "blockCache");
    }

    /** Live tables over all levels. */
    public int tableCount() {
        int count = 0;
        for (int level = 0; level < tablesPerLevel.size(); level++) {
            count += tablesPerLevel.get(level);
        }
        return count;
    }

    /** The sizes and counts of a store with the counters of {@code stats} and its block cache's figures. */
    public static DaoProperties of(long memtableBytes, int frozenMemtables, long tableBytes, long tableEntries,
                                   List<Integer> tablesPerLevel,
                                   int compactionsPending, long compactionDebtBytes, DaoStats stats,
                                   BlockCacheProperties blockCache) {
        return new DaoProperties(memtableBytes, frozenMemtables, tableBytes, tableEntries, tablesPerLevel, compactionsPending,
                compactionDebtBytes,
                stats.flushes(), stats.flushedBytes(), stats.compactions(), stats.compactedBytes(), stats.backgroundErrors(),
                stats.writeStalls(), stats.writeStallNanos(), stats.walSyncs(), stats.bloomNegatives(), blockCache);
    }
}
