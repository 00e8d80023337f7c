package io.kvstore.bench;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
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
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What block compression saves and costs our LSM engine, per codec ({@code DaoOptions.compression}),
 * on compressible values ({@link BenchValues#TEXT}: 100 bytes of JSON-like text; the reads also take
 * {@code -p values=random}, which no codec shrinks) and 16-byte random keys:
 * <ul>
 *   <li>{@code fill}: {@code keys} upserts into an empty store, as {@link DaoBenchmark}'s, with text
 *       values;</li>
 *   <li>{@code getPresent} and {@code scan100} on a store of {@code keys} entries loaded, flushed and
 *       compacted ({@link PreloadedStore}), with the default block cache and with none.</li>
 * </ul>
 * The read stores stay in {@link BenchDirectories#root()}, one directory per codec, so their bytes on
 * disk can be read after the run.
 *
 * <pre>
 * java -jar kv-bench/target/benchmarks.jar CompressionBenchmark
 * du -sb kv-bench/target/dao-bench/lsm-1000000-*-text/store
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class CompressionBenchmark {

    /** The store written by {@code fill}: empty at the start of every iteration, deleted at its end. */
    @State(Scope.Benchmark)
    public static class FillStore {
        @Param({"none", "lz4", "zstd"})
        public String compression;

        /** Keys written per iteration, by all threads together. */
        @Param({"1000000"})
        public int keys;

        FreshStore store;

        @Setup(Level.Iteration)
        public void open() throws IOException {
            store = FreshStore.open(BenchEngine.LSM, codec(compression));
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
        @Param({"none", "lz4", "zstd"})
        public String compression;

        @Param({"1000000"})
        public int keys;

        /** {@code DaoOptions.blockCacheBytes}: the default (an eighth of the heap), and no cache. */
        @Param({"default", "0"})
        public String blockCacheBytes;

        /** The stored values ({@link BenchValues}): compressible text, or random bytes no codec shrinks. */
        @Param({"text"})
        public String values;

        Dao dao;

        @Setup(Level.Trial)
        public void open() throws IOException {
            long cache = blockCacheBytes.equals("default") ? DaoOptions.defaultBlockCacheBytes()
                    : Long.parseLong(blockCacheBytes);
            BenchValues stored = BenchValues.valueOf(values.toUpperCase(Locale.ROOT));
            dao = PreloadedStore.open(BenchEngine.LSM, keys, codec(compression), stored, cache);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            if (dao != null) {
                dao.close();
            }
        }
    }

    /** Values for the fill, made ahead so that making them is not measured. */
    @State(Scope.Thread)
    public static class TextValues {
        private static final int COUNT = 4096;
        final byte[][] values = new byte[COUNT][];

        @Setup(Level.Trial)
        public void make(ThreadParams params) {
            for (int i = 0; i < COUNT; i++) {
                values[i] = BenchValues.TEXT.value((long) params.getThreadIndex() * COUNT + i);
            }
        }

        byte[] next(DaoBenchmark.ThreadState thread) {
            return values[thread.random.nextInt(COUNT)];
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 1)
    @Measurement(iterations = 3)
    public void fill(FillStore fill, DaoBenchmark.ThreadState thread, TextValues text) throws IOException {
        Dao dao = fill.store.dao;
        for (int i = thread.share(fill.keys); i > 0; i--) {
            byte[] key = new byte[BenchKeys.KEY_BYTES];
            thread.random.nextBytes(key);
            dao.upsert(Entry.value(key, text.next(thread), thread.nextTimestamp()));
        }
    }

    @Benchmark
    public Entry getPresent(ReadStore store, DaoBenchmark.ThreadState thread) throws IOException {
        BenchKeys.write(thread.random.nextInt(store.keys), thread.readKey);
        return store.dao.get(thread.readKey);
    }

    @Benchmark
    public int scan100(ReadStore store, DaoBenchmark.ThreadState thread, Blackhole blackhole) throws IOException {
        BenchKeys.write(thread.random.nextInt(store.keys), thread.readKey);
        return DaoBenchmark.scan(store.dao, thread.readKey, 100, blackhole);
    }

    private static Compression codec(String name) {
        for (Compression codec : Compression.values()) {
            if (codec.name().equalsIgnoreCase(name)) {
                return codec;
            }
        }
        throw new IllegalArgumentException("Unknown compression '" + name + "'; known: none, lz4, zstd");
    }
}
