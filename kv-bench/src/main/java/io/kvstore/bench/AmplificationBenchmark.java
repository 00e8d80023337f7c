package io.kvstore.bench;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Write and space amplification of the engines' compaction on two workloads: inserts of new keys, and
 * updates of random keys of a smaller key set. One writer, 16-byte keys in random order, random
 * (incompressible) values, uncompressed tables; the LSM engine under size-tiered and leveled
 * compaction and RocksDB (its own leveled compaction, dynamic level sizes) with the same memtable size
 * and level 0 trigger.
 *
 * <ul>
 *   <li>write amplification: bytes written to tables by flushes and compactions over the user bytes
 *       written (keys and values); the write-ahead log adds one more copy to every engine;</li>
 *   <li>space amplification: live table bytes once the store is flushed, writes have paused for twice
 *       {@code --idle-compaction-millis} (the LSM engine's leveled compaction holds level 0 to
 *       its share of a store at rest; every engine gets the same pause) and its compactions have
 *       settled, over the logical size of the live data (keys and values of the newest version of each
 *       key), and over the table bytes of the same store fully compacted ({@code Dao.compact()}), which
 *       leaves out the format's own overhead and counts only what shadowed versions take; the largest
 *       table bytes seen during the run, over the fully compacted size, beside them.</li>
 * </ul>
 *
 * <pre>
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.AmplificationBenchmark --writes 2000000 --update-keys 200000
 * </pre>
 */
@Command(name = "amplification-benchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Measures write and space amplification of the LSM engine's compaction styles and of RocksDB.")
public final class AmplificationBenchmark implements Callable<Integer> {
    /** The engines compared, by name: {@code tiered}, {@code leveled} (the LSM engine), {@code rocksdb}. */
    private static final List<String> ENGINES = List.of("tiered", "leveled", "rocksdb");
    /** Writes between two samples of the table bytes during a run. */
    private static final int SAMPLE_EVERY = 4096;
    private static final long SETTLE_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(10);

    @Spec
    CommandSpec spec;

    @Option(names = "--writes", description = "writes per workload")
    int writes = 2_000_000;

    @Option(names = "--update-keys", description = "distinct keys of the update workload")
    int updateKeys = 200_000;

    @Option(names = "--value-bytes", description = "bytes per value")
    int valueBytes = 100;

    @Option(names = "--memtable-bytes", description = "memtable size (flushThresholdBytes, RocksDB's write_buffer_size)")
    long memtableBytes = 4L << 20;

    @Option(names = "--compaction-trigger", description = "tables (level 0 tables under leveled) that start a compaction")
    int compactionTrigger = DaoOptions.DEFAULT_COMPACTION_TRIGGER;

    @Option(names = "--level-base-bytes", description = "the LSM engine's levelBaseBytes; 0: its default"
            + " (DaoOptions.DEFAULT_LEVEL_BASE_MEMTABLES memtables)")
    long levelBaseBytes;

    @Option(names = "--target-table-bytes", description = "the LSM engine's targetTableBytes")
    long targetTableBytes = DaoOptions.DEFAULT_TARGET_TABLE_BYTES;

    @Option(names = "--idle-compaction-millis", description = "the LSM engine's idleCompactionDelay; 0: off")
    long idleCompactionMillis = DaoOptions.DEFAULT_IDLE_COMPACTION_DELAY.toMillis();

    @Option(names = "--engines", split = ",", description = "engines to measure: tiered, leveled, rocksdb")
    List<String> engines = ENGINES;

    @Option(names = "--workloads", split = ",", description = "workloads: inserts, updates")
    List<String> workloads = List.of("inserts", "updates");

    public static void main(String[] args) {
        System.exit(new CommandLine(new AmplificationBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        for (String engine : engines) {
            if (!ENGINES.contains(engine)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "unknown engine '" + engine + "', expected one of " + ENGINES);
            }
        }
        for (String workload : workloads) {
            if (!workload.equals("inserts") && !workload.equals("updates")) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "unknown workload '" + workload + "', expected inserts or updates");
            }
        }
        out.printf("%,d writes per workload, %d-byte keys, %d-byte values, %,d-byte memtables, trigger %d;"
                        + " LSM leveled: levelBaseBytes %,d, targetTableBytes %,d, idleCompactionDelay %,d ms%n", writes,
                BenchKeys.KEY_BYTES, valueBytes, memtableBytes, compactionTrigger,
                options("leveled", Path.of(".")).levelBaseBytes(), targetTableBytes, idleCompactionMillis);
        List<String> rows = new ArrayList<>();
        rows.add("| workload | engine | user MB | written by flushes + compactions MB | write amplification "
                + "| live logical MB | tables at the end MB | fully compacted MB | space amplification (/ logical) "
                + "| (/ compacted) | max during the run (/ compacted) | run s | writers stalled s |");
        rows.add("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (String workload : workloads) {
            for (String engine : engines) {
                rows.add(run(workload, engine));
                out.println(rows.get(rows.size() - 1));
                out.flush();
            }
        }
        out.println();
        rows.forEach(out::println);
        out.flush();
        return 0;
    }

    private DaoOptions options(String engine, Path dir) {
        DaoOptions.Builder builder = DaoOptions.builder(dir).flushThresholdBytes(memtableBytes)
                .compactionTrigger(compactionTrigger).compression(Compression.NONE);
        if (!engine.equals("rocksdb")) {
            builder.compactionStyle(engine.equals("leveled") ? CompactionStyle.LEVELED : CompactionStyle.SIZE_TIERED)
                    .levelBaseBytes(levelBaseBytes).targetTableBytes(targetTableBytes)
                    .idleCompactionDelay(Duration.ofMillis(idleCompactionMillis));
        }
        return builder.build();
    }

    private String run(String workload, String engine) throws IOException {
        boolean updates = workload.equals("updates");
        int keySpace = updates ? updateKeys : writes;
        // A directory of its own, so that runs side by side never open one store twice.
        Path dir = Files.createTempDirectory(BenchDirectories.root(), "amplification-" + workload + "-" + engine + "-");
        SplittableRandom random = new SplittableRandom(42);
        BitSet written = new BitSet(keySpace);
        byte[] value = new byte[valueBytes];
        long maxTableBytes = 0;
        long started = System.nanoTime();
        DaoProperties settled;
        long compactedBytes;
        try (Dao dao = (engine.equals("rocksdb") ? Engine.ROCKSDB : Engine.LSM).open(options(engine, dir))) {
            for (int i = 0; i < writes; i++) {
                int k = updates ? random.nextInt(keySpace) : i;
                written.set(k);
                random.nextBytes(value);
                dao.upsert(Entry.value(BenchKeys.key(k), value.clone(), i + 1L));
                if (i % SAMPLE_EVERY == 0) {
                    maxTableBytes = Math.max(maxTableBytes, dao.properties().tableBytes());
                }
            }
            dao.flush();
            settle(dao);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2 * idleCompactionMillis));
            settled = settle(dao);
            maxTableBytes = Math.max(maxTableBytes, settled.tableBytes());
            dao.compact();
            compactedBytes = settle(dao).tableBytes();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        BenchDirectories.deleteRecursively(dir);
        long userBytes = (long) writes * (BenchKeys.KEY_BYTES + valueBytes);
        long logicalBytes = (long) written.cardinality() * (BenchKeys.KEY_BYTES + valueBytes);
        long tableWrites = settled.flushedBytes() + settled.compactedBytes();
        return String.format("| %s | %s | %.0f | %.0f | %.2f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.0f | %s |",
                workload, engine.equals("rocksdb") ? "RocksDB" : "LSM " + engine, userBytes / 1e6, tableWrites / 1e6,
                tableWrites / (double) userBytes, logicalBytes / 1e6, settled.tableBytes() / 1e6, compactedBytes / 1e6,
                settled.tableBytes() / (double) logicalBytes, settled.tableBytes() / (double) compactedBytes,
                maxTableBytes / (double) compactedBytes, seconds,
                settled.writeStallNanos() < 0 ? "n/a" : String.format("%.1f", settled.writeStallNanos() / 1e9));
    }

    /** Polls the store until no compaction is due or running, twice in a row; its properties then. */
    private static DaoProperties settle(Dao dao) throws IOException {
        long deadline = System.nanoTime() + SETTLE_TIMEOUT_NANOS;
        int quiet = 0;
        while (true) {
            DaoProperties properties = dao.properties();
            quiet = properties.compactionsPending() == 0 && properties.frozenMemtables() == 0 ? quiet + 1 : 0;
            if (quiet == 2) {
                return properties;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("compactions of " + dao + " still pending after 10 minutes: " + properties);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }
}
