package io.kvstore.server.metrics;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.DiskSpace;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToLongFunction;

/**
 * The store's {@link DaoProperties} as meters. {@link #refresh()} reads them once per scrape, from
 * memory; every meter then reports that snapshot, so one scrape is consistent. A value the engine does
 * not know is reported as NaN.
 */
public final class StorageMetrics {
    private final Dao dao;
    private volatile DaoProperties last;
    private volatile DiskSpace disk;

    public StorageMetrics(Dao dao, MeterRegistry registry) {
        this.dao = dao;
        this.last = dao.properties();
        this.disk = dao.diskSpace();
        gauge(registry, "kv.storage.memtable", "bytes", "Bytes in memtables: the active one and those waiting to be flushed",
                DaoProperties::memtableBytes);
        gauge(registry, "kv.storage.memtables.frozen", null, "Memtables waiting to be flushed", DaoProperties::frozenMemtables);
        gauge(registry, "kv.storage.tables.size", "bytes", "Bytes of the live table files", DaoProperties::tableBytes);
        gauge(registry, "kv.storage.compactions.pending", null, "Compactions the engine would run now",
                DaoProperties::compactionsPending);
        gauge(registry, "kv.storage.compaction.debt", "bytes",
                "Bytes compaction has yet to move down before every level is within its limit; writers are slowed"
                        + " in proportion to it past a soft limit", DaoProperties::compactionDebtBytes);
        for (int level = 0; level < last.tablesPerLevel().size(); level++) {
            int l = level;
            Gauge.builder("kv.storage.tables", this, m -> {
                        DaoProperties p = m.last;
                        return l < p.tablesPerLevel().size() ? p.tablesPerLevel().get(l) : Double.NaN;
                    })
                    .description("Live tables in each level (size-tiered compaction has one level)")
                    .tag("level", Integer.toString(level))
                    .strongReference(true).register(registry);
        }
        counter(registry, "kv.storage.flushes", null, "Memtables written to tables", DaoProperties::flushes);
        counter(registry, "kv.storage.flushed", "bytes", "Bytes written by flushes", DaoProperties::flushedBytes);
        counter(registry, "kv.storage.compactions", null, "Compactions installed", DaoProperties::compactions);
        counter(registry, "kv.storage.compacted", "bytes", "Bytes written by compactions", DaoProperties::compactedBytes);
        counter(registry, "kv.storage.background.errors", null,
                "Flushes and compactions that failed (the log holds each cause)", DaoProperties::backgroundErrors);
        counter(registry, "kv.storage.write.stalls", null, "Writes that waited for flushes or compactions to catch up",
                DaoProperties::writeStalls);
        FunctionCounter.builder("kv.storage.write.stall", this, m -> m.last.writeStallNanos() < 0 ? Double.NaN
                        : m.last.writeStallNanos() / 1e9)
                .description("Time writes waited for flushes or compactions to catch up").baseUnit("seconds")
                .register(registry);
        counter(registry, "kv.storage.wal.syncs", null, "Times the write-ahead log was forced to the device",
                DaoProperties::walSyncs);
        counter(registry, "kv.storage.bloom.negatives", null,
                "Table lookups a Bloom filter answered without reading a block", DaoProperties::bloomNegatives);
        blockCache(registry);
        Gauge.builder("kv.disk.free", this, m -> known(m.disk.freeBytes()))
                .description("Bytes free on the data directory's disk, as the store last saw them").baseUnit("bytes")
                .strongReference(true).register(registry);
        Gauge.builder("kv.disk.writes.refused", this, m -> m.disk.refusesWrites() ? 1 : 0)
                .description("1 while writes are refused: the disk's free bytes are below --min-free-bytes, or it is full")
                .strongReference(true).register(registry);
        Gauge.builder("kv.disk.reserved", this, m -> m.disk.reservedBytes())
                .description("Bytes reserved by the flushes and compactions running now").baseUnit("bytes")
                .strongReference(true).register(registry);
        Gauge.builder("kv.disk.compaction.waiting", this, m -> m.disk.compactionWaitsForSpace() ? 1 : 0)
                .description("1 while a compaction that is due waits for space to be freed")
                .strongReference(true).register(registry);
        Gauge.builder("kv.disk.writes.stopped", this, m -> m.disk.stopsWrites() ? 1 : 0)
                .description("1 once a failed fsync or write stopped writes until the node restarts (the log names the file)")
                .strongReference(true).register(registry);
    }

    private void blockCache(MeterRegistry registry) {
        String requests = "Reads of a compressed table's data block, by whether the block cache held it decompressed";
        FunctionCounter.builder("kv.storage.block.cache.requests", this, m -> known(m.last.blockCache().hits()))
                .description(requests).tag("result", "hit").register(registry);
        FunctionCounter.builder("kv.storage.block.cache.requests", this, m -> known(m.last.blockCache().misses()))
                .description(requests).tag("result", "miss").register(registry);
        counter(registry, "kv.storage.block.cache.evictions", null, "Blocks the block cache dropped to stay within its bound",
                p -> p.blockCache().evictions());
        gauge(registry, "kv.storage.block.cache", "bytes", "Bytes the blocks in the block cache count for",
                p -> p.blockCache().bytes());
        gauge(registry, "kv.storage.block.cache.capacity", "bytes", "Bound of the block cache (0: off)",
                p -> p.blockCache().capacityBytes());
    }

    /** Reads the store's properties for the meters to report; cheap, never blocks. */
    void refresh() {
        last = dao.properties();
        disk = dao.diskSpace();
    }

    private void gauge(MeterRegistry registry, String name, String unit, String description,
                       ToLongFunction<DaoProperties> value) {
        Gauge.builder(name, this, m -> known(value.applyAsLong(m.last)))
                .description(description).baseUnit(unit)
                .strongReference(true).register(registry);
    }

    private void counter(MeterRegistry registry, String name, String unit, String description,
                         ToLongFunction<DaoProperties> value) {
        FunctionCounter.builder(name, this, m -> known(value.applyAsLong(m.last)))
                .description(description).baseUnit(unit)
                .register(registry);
    }

    private static double known(long value) {
        return value < 0 ? Double.NaN : value;
    }
}
