package io.kvstore.bench;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
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
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Our LSM engine against RocksDB and the embedded Java stores a user would try instead
 * ({@link BenchEngine}: LMDB, H2's MVStore, Xodus, LevelDB, each behind our {@link Dao} with our versions
 * in a value header) in the same run, on 16-byte random keys and 100-byte random values, blocks stored
 * uncompressed where an engine compresses ({@link CompressionBenchmark} measures the codecs), every
 * engine handing each write to the operating system without forcing it to the device:
 * <ul>
 *   <li>{@code fill}: {@code keys} upserts of new random keys into an empty store (default options: WAL
 *       on, no fsync, 32 MiB memtable; a peer commits each write), split among the threads, flushes and compactions included;
 *       one shot per iteration into a fresh store, so its score is the time of the whole fill and the
 *       rate is {@code keys} divided by it;</li>
 *   <li>{@code getPresent} / {@code getAbsent}: point reads of stored / never-written keys on a store
 *       of {@code keys} entries already flushed and compacted into tables ({@link PreloadedStore},
 *       built once and reused);</li>
 *   <li>{@code scan100}: a range of 100 consecutive entries from a random stored key.</li>
 * </ul>
 * Read results are operations per second of all threads ({@code -t}) together.
 * {@code kv-bench/scripts/engine-suite.sh} runs it beside RocksDB's own {@code db_bench}.
 *
 * <pre>
 * java -jar kv-bench/target/benchmarks.jar DaoBenchmark
 * java -jar kv-bench/target/benchmarks.jar DaoBenchmark -f 1 -wi 1 -i 1 -p keys=100000   # sanity run
 * java -jar kv-bench/target/benchmarks.jar DaoBenchmark -p engine=lsm,lmdb                 # two engines
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
// The opens are for the peers: lmdbjava's direct-buffer proxy and Xodus's uninterruptible file channels.
@Fork(value = 2, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"})
public class DaoBenchmark {

    /** The store written by {@code fill}: empty at the start of every iteration, deleted at its end. */
    @State(Scope.Benchmark)
    public static class FillStore {
        @Param({"lsm", "rocksdb", "lmdb", "mvstore", "xodus", "leveldb"})
        public String engine;

        /** Keys written per iteration, by all threads together. */
        @Param({"5000000"})
        public int keys;

        FreshStore store;

        @Setup(Level.Iteration)
        public void open() throws IOException {
            store = FreshStore.open(BenchEngine.fromName(engine), Compression.NONE);
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            if (store != null) {
                store.close();
                store = null;
            }
        }
    }

    /** The read-only store of the get and scan benchmarks. */
    @State(Scope.Benchmark)
    public static class ReadStore {
        @Param({"lsm", "rocksdb", "lmdb", "mvstore", "xodus", "leveldb"})
        public String engine;

        /** Stored keys; at least 5M for the published figures. */
        @Param({"5000000"})
        public int keys;

        Dao dao;

        @Setup(Level.Trial)
        public void open() throws IOException {
            dao = PreloadedStore.open(BenchEngine.fromName(engine), keys, Compression.NONE, BenchValues.RANDOM);
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
        final byte[] value = new byte[BenchValues.VALUE_BYTES];
        long timestamp;
        private long threadIndex;
        private int threadCount;

        @Setup(Level.Trial)
        public void setUp(ThreadParams params) {
            threadIndex = params.getThreadIndex();
            threadCount = params.getThreadCount();
            random = new SplittableRandom(0x1234_5678L + threadIndex);
            random.nextBytes(value);
        }

        /** This thread's part of {@code keys} operations shared by all threads. */
        int share(int keys) {
            return keys / threadCount;
        }

        /** Unique across threads: the thread index sits in the low bits. */
        long nextTimestamp() {
            return (++timestamp << 8) | (threadIndex & 0xFF);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 1)
    @Measurement(iterations = 3)
    public void fill(FillStore fill, ThreadState thread) throws IOException {
        Dao dao = fill.store.dao;
        for (int i = thread.share(fill.keys); i > 0; i--) {
            byte[] key = new byte[BenchKeys.KEY_BYTES]; // the memtable keeps it: a fresh array per write
            thread.random.nextBytes(key);
            // The value is never modified, so every entry may share it.
            dao.upsert(Entry.value(key, thread.value, thread.nextTimestamp()));
        }
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
        return scan(store.dao, thread.readKey, 100, blackhole);
    }

    /** Reads up to {@code count} entries from {@code from} on, as {@code scan100} does; returns how many. */
    static int scan(Dao dao, byte[] from, int count, Blackhole blackhole) throws IOException {
        int read = 0;
        try (CloseableIterator<Entry> range = dao.range(from, null)) {
            while (read < count && range.hasNext()) {
                blackhole.consume(range.next());
                read++;
            }
        }
        return read;
    }
}
