package io.kvstore.bench;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.BlockCacheProperties;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * Point-read latency of an LSM store of a given size, to compare a store far larger than the heap (and,
 * once the page cache is dropped, than memory holds of it) with one that fits. Fills a fresh store with
 * the engine's default options ({@link FreshStore}: deleted at the end) with {@code --bytes} of keys and
 * values, in key order ({@link BenchKeys#writeOrdered}): each flush then holds keys above every table
 * already written, so compaction never merges overlapping data and the fill writes each byte a few
 * times rather than about ten times per level; a full compaction after the fill leaves the same
 * tables whatever the order. Then reads random present keys in an open loop ({@link OpenLoopReads}) and
 * prints the percentiles, what the block cache, the collector and the page cache did meanwhile, and a
 * {@code RESULT} line.
 *
 * <pre>
 * java -Xmx1g -cp kv-bench/target/benchmarks.jar io.kvstore.bench.LargeStoreBenchmark --bytes 10g --rate 2000 --page-cache warmed
 * </pre>
 */
@Command(name = "large-store-benchmark", mixinStandardHelpOptions = true, showDefaultValues = true, usageHelpWidth = 110,
        description = "Fills an LSM store with N bytes, then measures random point reads in an open loop.")
public final class LargeStoreBenchmark implements Callable<Integer> {
    @Option(names = "--bytes", paramLabel = "SIZE", converter = ByteSize.class,
            description = "keys and values to write, e.g. 200m, 10g")
    long bytes = 1L << 30;

    @Option(names = "--value-bytes", paramLabel = "N", description = "bytes per value (random, so LZ4 does not shrink them)")
    int valueBytes = 1024;

    @Option(names = "--dir", paramLabel = "DIR", showDefaultValue = Visibility.NEVER,
            description = "where the store is made (default: kv-bench/target/dao-bench, or -Dkv.bench.dir)")
    Path dir;

    @Option(names = "--rate", paramLabel = "READS_PER_S", description = "total read rate")
    double rate = 2000;

    @Option(names = "--threads", paramLabel = "N", description = "reading threads, each with its share of the rate")
    int threads = 4;

    @Option(names = "--duration", paramLabel = "SECONDS", description = "measured time")
    int durationSeconds = 60;

    @Option(names = "--warmup", paramLabel = "SECONDS", description = "reads before measuring, results discarded")
    int warmupSeconds = 5;

    @Option(names = "--page-cache", paramLabel = "MODE",
            description = "the kernel's page cache before the reads: ${COMPLETION-CANDIDATES} (kept: as the fill left it;"
                    + " dropped: synced and emptied, needs root; warmed: synced, then every table read once;"
                    + " mapped: synced, then every table mapped, loaded and kept mapped through the reads)")
    PageCacheMode pageCache = PageCacheMode.kept;

    /** What the page cache holds when the reads start. */
    enum PageCacheMode { kept, dropped, warmed, mapped }

    @Option(names = "--seed", paramLabel = "S", showDefaultValue = Visibility.NEVER,
            description = "random seed of the reads (default: time based, printed)")
    long seed = System.nanoTime();

    /** Where the report goes. */
    PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LargeStoreBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (valueBytes < 1 || rate <= 0 || threads < 1 || durationSeconds < 1 || warmupSeconds < 0) {
            System.err.println("error: --value-bytes, --rate, --threads and --duration must be positive, --warmup >= 0");
            return 2;
        }
        long keys = Math.max(1, bytes / (BenchKeys.KEY_BYTES + valueBytes));
        try (FreshStore store = dir == null ? FreshStore.open(BenchEngine.LSM, DaoOptions.DEFAULT_COMPRESSION)
                : FreshStore.open(BenchEngine.LSM, DaoOptions.DEFAULT_COMPRESSION, dir)) {
            double fillSeconds = fill(store.dao, keys);
            long tableBytes = store.dao.properties().tableBytes();
            long heap = Runtime.getRuntime().maxMemory();
            out.printf(Locale.ROOT, "store: %,d keys of %d + %d B, %.1f MiB of tables (%.2f x the heap of %.0f MiB),"
                            + " block cache %.0f MiB; filled and compacted in %.1f s%n",
                    keys, BenchKeys.KEY_BYTES, valueBytes, tableBytes / 1048576.0, tableBytes / (double) heap,
                    heap / 1048576.0, DaoOptions.defaultBlockCacheBytes() / 1048576.0, fillSeconds);
            PageCache.Mapped mapped = pageCache == PageCacheMode.mapped ? PageCache.map(store.directory()) : null;
            String pageCacheState = switch (pageCache) {
                case kept -> "kept";
                case dropped -> PageCache.drop();
                case warmed -> PageCache.warm(store.directory());
                case mapped -> mapped.state();
            };
            out.println("page cache: " + pageCacheState);
            ProcessIo ioBefore = ProcessIo.now();
            GcActivity gcBefore = GcActivity.now();
            BlockCacheProperties cacheBefore = store.dao.properties().blockCache();
            OpenLoopReads.Result result = new OpenLoopReads(store.dao, keys, valueBytes)
                    .run(rate, threads, warmupSeconds, durationSeconds, seed);
            Reference.reachabilityFence(mapped);
            BlockCacheProperties cache = store.dao.properties().blockCache();
            long hits = cache.hits() - cacheBefore.hits();
            long lookups = hits + cache.misses() - cacheBefore.misses();
            double hitRate = lookups == 0 ? 0 : hits / (double) lookups;
            report(out, result, ProcessIo.now().since(ioBefore), GcActivity.now().since(gcBefore), hitRate,
                    tableBytes, heap, fillSeconds, pageCacheState);
            return result.missing() == 0 ? 0 : 1;
        }
    }

    /** Writes keys {@code [0, keys)} in key order, then flushes and compacts; returns the seconds it took. */
    private double fill(Dao dao, long keys) throws IOException {
        long started = System.nanoTime();
        long step = Math.max(1, keys / 10);
        for (long i = 0; i < keys; i++) {
            byte[] key = new byte[BenchKeys.KEY_BYTES];
            BenchKeys.writeOrdered(i, key);
            dao.upsert(Entry.value(key, BenchValues.RANDOM.value(i, valueBytes), 1));
            if ((i + 1) % step == 0) {
                System.err.printf(Locale.ROOT, "filled %,d of %,d keys in %.0f s%n", i + 1, keys,
                        (System.nanoTime() - started) / 1e9);
            }
        }
        dao.flush();
        dao.compact();
        return (System.nanoTime() - started) / 1e9;
    }

    private void report(PrintStream out, OpenLoopReads.Result result, ProcessIo io, GcActivity gc, double blockCacheHitRate,
                        long tableBytes, long heap, double fillSeconds, String pageCache) {
        Histogram latency = result.latencyMicros();
        out.printf(Locale.ROOT, "reads: open loop at %.0f/s from %d threads for %d s after %d s of warm-up (seed %d):"
                        + " %,d reads = %.0f/s, %d missing%n",
                rate, threads, durationSeconds, warmupSeconds, seed, result.reads(),
                result.reads() / (double) durationSeconds, result.missing());
        double p50 = latency.getValueAtPercentile(50) / 1000.0;
        double p99 = latency.getValueAtPercentile(99) / 1000.0;
        double p999 = latency.getValueAtPercentile(99.9) / 1000.0;
        double max = latency.getMaxValue() / 1000.0;
        out.printf(Locale.ROOT, "latency ms: p50=%.3f p99=%.3f p99.9=%.3f max=%.3f%n", p50, p99, p999, max);
        out.printf(Locale.ROOT, "during the reads (warm-up included): block cache hit rate %.1f%%; %d collections"
                        + " pausing %d ms; from the device %s MiB, %s major and %s minor page faults%n",
                100 * blockCacheHitRate, gc.collections(), gc.millis(),
                io.readBytes() < 0 ? "unknown" : String.format(Locale.ROOT, "%.1f", io.readBytes() / 1048576.0),
                io.majorFaults() < 0 ? "unknown" : Long.toString(io.majorFaults()),
                io.minorFaults() < 0 ? "unknown" : Long.toString(io.minorFaults()));
        out.printf(Locale.ROOT, "RESULT table_bytes=%d heap_bytes=%d fill_s=%.1f rate=%.0f rps=%.0f p50=%.3f p99=%.3f"
                        + " p999=%.3f max=%.3f missing=%d read_mib=%.1f major_faults=%d minor_faults=%d gc=%d gc_ms=%d"
                        + " block_cache_hits=%.3f page_cache=%s%n",
                tableBytes, heap, fillSeconds, rate, result.reads() / (double) durationSeconds, p50, p99, p999, max,
                result.missing(), io.readBytes() / 1048576.0, io.majorFaults(), io.minorFaults(), gc.collections(),
                gc.millis(), blockCacheHitRate, pageCache.startsWith("not") ? "unchanged" : pageCache.split(" ")[0]);
    }
}
