package io.kvstore.bench;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
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
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Our LSM engine against RocksDB in the same run, on 16-byte random keys and 100-byte values:
 * <ul>
 *   <li>{@code put}: upserts of new random keys into a store that starts empty (default options:
 *       WAL on, no fsync, 32 MiB memtable), flushes and compactions included;</li>
 *   <li>{@code getPresent} / {@code getAbsent}: point reads of stored / never-written keys on a store
 *       of {@code keys} entries already flushed and compacted into tables ({@link PreloadedStore},
 *       built once and reused);</li>
 *   <li>{@code scan100}: a range of 100 consecutive entries from a random stored key.</li>
 * </ul>
 * Results are operations per second (per thread count given with {@code -t}).
 *
 * <pre>
 * java -jar kv-bench/target/benchmarks.jar DaoBenchmark
 * java -jar kv-bench/target/benchmarks.jar DaoBenchmark -f 1 -wi 1 -i 1 -p keys=100000   # sanity run
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 2, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class DaoBenchmark {

    /** The store written by {@code put}: fresh for every trial, deleted afterwards. */
    @State(Scope.Benchmark)
    public static class WriteStore {
        @Param({"lsm", "rocksdb"})
        public String engine;

        Dao dao;
        private Path directory;

        @Setup(Level.Trial)
        public void open() throws IOException {
            Engine chosen = Engine.fromName(engine); // before creating anything: a bad name leaves no litter
            directory = Files.createTempDirectory(BenchDirectories.root(), "put-" + engine + "-");
            dao = chosen.open(DaoOptions.defaults(directory));
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            if (dao != null) {
                dao.close();
            }
            if (directory != null) {
                BenchDirectories.deleteRecursively(directory);
            }
        }
    }

    /** The read-only store of the get and scan benchmarks. */
    @State(Scope.Benchmark)
    public static class ReadStore {
        @Param({"lsm", "rocksdb"})
        public String engine;

        /** Stored keys; at least 5M for the published figures. */
        @Param({"5000000"})
        public int keys;

        Dao dao;

        @Setup(Level.Trial)
        public void open() throws IOException {
            dao = PreloadedStore.open(Engine.fromName(engine), keys);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            if (dao != null) {
                dao.close();
            }
        }
    }

    /** Per-thread randomness, a reusable key buffer for reads, and a timestamp source for writes. */
    @State(Scope.Thread)
    public static class ThreadState {
        SplittableRandom random;
        final byte[] readKey = new byte[BenchKeys.KEY_BYTES];
        final byte[] value = new byte[BenchKeys.VALUE_BYTES];
        long timestamp;
        private long threadIndex;

        @Setup(Level.Trial)
        public void setUp(ThreadParams params) {
            threadIndex = params.getThreadIndex();
            random = new SplittableRandom(0x1234_5678L + threadIndex);
            random.nextBytes(value);
        }

        /** Unique across threads: the thread index sits in the low bits. */
        long nextTimestamp() {
            return (++timestamp << 8) | (threadIndex & 0xFF);
        }
    }

    @Benchmark
    public void put(WriteStore store, ThreadState thread) throws IOException {
        byte[] key = new byte[BenchKeys.KEY_BYTES]; // the memtable keeps it: a fresh array per write
        thread.random.nextBytes(key);
        // The value is never modified, so every entry may share it.
        store.dao.upsert(Entry.value(key, thread.value, thread.nextTimestamp()));
    }

    @Benchmark
    public Entry getPresent(ReadStore store, ThreadState thread) throws IOException {
        BenchKeys.write(thread.random.nextInt(store.keys), thread.readKey);
        return store.dao.get(thread.readKey);
    }

    @Benchmark
    public Entry getAbsent(ReadStore store, ThreadState thread) throws IOException {
        BenchKeys.write((long) store.keys + thread.random.nextInt(store.keys), thread.readKey);
        return store.dao.get(thread.readKey);
    }

    @Benchmark
    public int scan100(ReadStore store, ThreadState thread, Blackhole blackhole) throws IOException {
        BenchKeys.write(thread.random.nextInt(store.keys), thread.readKey);
        int read = 0;
        try (CloseableIterator<Entry> range = store.dao.range(thread.readKey, null)) {
            while (read < 100 && range.hasNext()) {
                blackhole.consume(range.next());
                read++;
            }
        }
        return read;
    }
}
