package io.kvstore.core.rocksdb;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.SyncPolicy;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.CompressionType;
import org.rocksdb.Filter;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RateLimiter;
import org.rocksdb.WriteOptions;

/**
 * The native option objects behind one {@link RocksDbDao}, configured from {@link DaoOptions} the way
 * an engineer would tune RocksDB for small keys and values, and closed together with the store.
 *
 * <p>Mapping of our options:
 * <ul>
 *   <li>{@code flushThresholdBytes} -> {@code write_buffer_size} (RocksDB raises values below 64 KiB
 *       to 64 KiB, so tiny thresholds flush less often than in the LSM engine);</li>
 *   <li>{@code maxFrozenMemtables} -> {@code max_write_buffer_number} = frozen + 1 active;</li>
 *   <li>{@code compactionTrigger} -> {@code level0_file_num_compaction_trigger};</li>
 *   <li>{@code compactionStyle} -> {@code compaction_style}: leveled to RocksDB's level style, size-tiered
 *       to its universal style;</li>
 *   <li>{@code compactionBytesPerSecond} -> a rate limiter of that many bytes per second (none if 0).
 *       RocksDB's limits flushes too, ahead of compactions, and does not lift while level 0 falls
 *       behind, as ours does: there the writers' slowdown takes over;</li>
 *   <li>{@code delayedWriteBytesPerSecond} -> {@code delayed_write_rate}, the writers' slowdown
 *       once level 0 piles up (RocksDB slows and stops writers at 20 and 36 level 0 tables, where our
 *       engine does for the default trigger of 4);</li>
 *   <li>{@code bloomBitsPerKey} -> a full-key Bloom filter per table (none if 0), plus a memtable
 *       Bloom filter so writes and absent-key reads skip the memtable search;</li>
 *   <li>{@code blockSizeBytes} -> the block-based table's block size;</li>
 *   <li>{@code compression} -> the same codec for every level ({@code NO_COMPRESSION},
 *       {@code LZ4_COMPRESSION}, {@code ZSTD_COMPRESSION}), so the two engines pay for the same work;</li>
 *   <li>{@code syncPolicy}: WAL always on; {@code NONE} writes the WAL to the OS without fsync
 *       (survives kill -9); {@code EVERY_WRITE} and {@code GROUP_COMMIT} both use synced writes,
 *       which RocksDB already groups: concurrent writers share one fsync through its write-group
 *       leader, which is group commit without a timer.</li>
 * </ul>
 * Block cache: an LRU cache of {@link #BLOCK_CACHE_BYTES} (off-heap; index and filter blocks are
 * kept in table readers, outside it).
 */
final class RocksResources implements AutoCloseable {
    /** Off-heap LRU block cache shared by every table of one store: 128 MiB. */
    static final long BLOCK_CACHE_BYTES = 128L << 20;

    final Options options;
    final WriteOptions writeOptions;
    private final Cache blockCache;
    private final Filter bloomFilter;
    private final RateLimiter compactionRate;

    RocksResources(DaoOptions daoOptions) {
        blockCache = new LRUCache(BLOCK_CACHE_BYTES);
        bloomFilter = daoOptions.bloomBitsPerKey() > 0 ? new BloomFilter(daoOptions.bloomBitsPerKey(), false) : null;
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(blockCache)
                .setBlockSize(daoOptions.blockSizeBytes())
                .setWholeKeyFiltering(true);
        if (bloomFilter != null) {
            table.setFilterPolicy(bloomFilter);
        }
        compactionRate = daoOptions.compactionBytesPerSecond() > 0
                ? new RateLimiter(daoOptions.compactionBytesPerSecond()) : null;
        options = new Options()
                .setCreateIfMissing(true)
                .setTableFormatConfig(table)
                .setCompressionType(compressionType(daoOptions.compression()))
                .setWriteBufferSize(daoOptions.flushThresholdBytes())
                .setMaxWriteBufferNumber(daoOptions.maxFrozenMemtables() + 1)
                .setLevel0FileNumCompactionTrigger(daoOptions.compactionTrigger())
                .setCompactionStyle(compactionStyle(daoOptions.compactionStyle()))
                .setDelayedWriteRate(daoOptions.delayedWriteBytesPerSecond())
                .setMaxBackgroundJobs(2)
                .setKeepLogFileNum(4) // RocksDB's own info LOG files, one more per reopen otherwise
                .setMemtableWholeKeyFiltering(bloomFilter != null)
                .setMemtablePrefixBloomSizeRatio(bloomFilter != null ? 0.1 : 0.0);
        if (compactionRate != null) {
            options.setRateLimiter(compactionRate);
        }
        writeOptions = new WriteOptions()
                .setDisableWAL(false)
                .setSync(daoOptions.syncPolicy() != SyncPolicy.NONE);
    }

    /** RocksDB's codec for ours; RocksDB records it per block, so a store reopened under another still reads. */
    static CompressionType compressionType(Compression compression) {
        return switch (compression) {
            case NONE -> CompressionType.NO_COMPRESSION;
            case LZ4 -> CompressionType.LZ4_COMPRESSION;
            case ZSTD -> CompressionType.ZSTD_COMPRESSION;
        };
    }

    /** RocksDB's compaction style for ours. */
    static org.rocksdb.CompactionStyle compactionStyle(CompactionStyle style) {
        return switch (style) {
            case LEVELED -> org.rocksdb.CompactionStyle.LEVEL;
            case SIZE_TIERED -> org.rocksdb.CompactionStyle.UNIVERSAL;
        };
    }

    @Override
    public void close() {
        writeOptions.close();
        options.close();
        if (compactionRate != null) {
            compactionRate.close();
        }
        if (bloomFilter != null) {
            bloomFilter.close();
        }
        blockCache.close();
    }
}
