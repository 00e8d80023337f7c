package io.kvstore.bench;

import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One compaction of our LSM engine, timed, and what it allocates on the heap: {@code tables} tables of
 * {@code keys / tables} upserts each of 16-byte keys (after {@code keyPrefix} bytes all keys share)
 * drawn at random from {@code keys} (so tables overlap and some keys have several versions) and
 * 100-byte values ({@link BenchValues#TEXT} unless {@code values=random}), merged by {@code Dao.compact()}
 * into the deepest level. The heap a compaction allocates becomes young
 * collections on a server, and each one pauses requests: when the trial ends it prints what the
 * compaction thread allocated (its {@code ThreadMXBean} count) per upsert its tables were written with.
 *
 * <pre>
 * java -jar kv-bench/target/benchmarks.jar CompactionBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class CompactionBenchmark {

    /** A store of {@code tables} level-0 tables, written afresh before every compaction. */
    @State(Scope.Thread)
    public static class Tables {
        @Param({"none", "lz4"})
        public String compression;

        @Param({"1000000"})
        public int keys;

        @Param({"4"})
        public int tables;

        /** What the values are made of: {@code text} (JSON-like, compressible) or {@code random} (not). */
        @Param({"text"})
        public String values;

        /** Bytes of one prefix that every key begins with, as a table or tenant name makes them (0: none). */
        @Param({"0"})
        public int keyPrefix;

        FreshStore store;
        private long seed = 1;

        @Setup(Level.Invocation)
        public void write() throws IOException {
            Path root = BenchDirectories.root();
            Files.createDirectories(root);
            Path directory = Files.createTempDirectory(root, "compaction-");
            // Level 0 is compacted only when asked: the tables stay as written until the benchmark runs.
            DaoOptions options = DaoOptions.builder(directory).compression(Compression.valueOf(compression.toUpperCase()))
                    .compactionTrigger(Integer.MAX_VALUE / 16).idleCompactionDelay(Duration.ZERO)
                    .flushThresholdBytes(1L << 30).build();
            store = FreshStore.wrap(Engine.LSM.open(options), directory);
            SplittableRandom random = new SplittableRandom(seed++);
            BenchValues kind = BenchValues.valueOf(values.toUpperCase());
            long timestamp = 1;
            for (int t = 0; t < tables; t++) {
                for (int i = keys / tables; i > 0; i--) {
                    long index = random.nextInt(keys);
                    store.dao.upsert(Entry.value(key(index), kind.value(index), timestamp++));
                }
                store.dao.flush();
            }
        }

        private byte[] key(long index) {
            byte[] key = new byte[keyPrefix + BenchKeys.KEY_BYTES];
            Arrays.fill(key, 0, keyPrefix, (byte) 'p');
            BenchKeys.write(index, key, keyPrefix);
            return key;
        }

        @TearDown(Level.Invocation)
        public void close() throws IOException {
            store.close();
        }
    }

    /**
     * What the compaction thread allocated over the measured compactions, printed per entry read when
     * the trial ends (a JMH counter would be summed over the iterations).
     */
    @State(Scope.Benchmark)
    public static class Allocation {
        private boolean measuring;
        private long bytes;
        private long entries;
        private int compactions;

        @Setup(Level.Iteration)
        public void iteration(IterationParams params) {
            measuring = params.getType() == IterationType.MEASUREMENT;
        }

        void add(long allocated, long read) {
            if (measuring) {
                bytes += allocated;
                entries += read;
                compactions++;
            }
        }

        @TearDown(Level.Trial)
        public void report() {
            System.out.printf("%nallocated by the compaction thread: %.1f bytes per upsert merged (%d compactions)%n",
                    bytes / (double) Math.max(1, entries), compactions);
        }
    }

    @Benchmark
    public void compact(Tables tables, Allocation allocation) throws IOException {
        Thread compactor = compactionThread();
        long before = allocatedBytes(compactor);
        tables.store.dao.compact();
        allocation.add(allocatedBytes(compactor) - before, tables.keys);
    }

    private static Thread compactionThread() {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals("kvstore-compaction")) {
                return thread;
            }
        }
        throw new IllegalStateException("no kvstore-compaction thread");
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19
    private static long allocatedBytes(Thread thread) {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(thread.getId());
    }
}
