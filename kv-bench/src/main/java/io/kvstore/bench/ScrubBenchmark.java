package io.kvstore.bench;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
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

/**
 * What the scrub costs the foreground: point reads of an LSM store while a scrub reads its tables over
 * and over, against the same without one. {@code scrub}: {@code off}; {@code default}, the
 * rate of the background scrub at the default period (the tables' bytes over a week, at least 64 KiB/s);
 * {@code unlimited}, a pass of {@code POST /v0/admin/scrub?bytes-per-s=0}. The scrub runs on a thread of
 * its own, passes back to back, as the background scrub's thread does; {@code get} reads a stored key of
 * the preloaded store ({@link PreloadedStore}). {@code kv-bench/scripts/scrub-cost.sh} runs the settings
 * in turn, repeated.
 *
 * <pre>
 * java -jar kv-bench/target/benchmarks.jar ScrubBenchmark -p scrub=off,default
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ScrubBenchmark {
    /** The background scrub's default period, in seconds. */
    private static final double DEFAULT_PERIOD_SECONDS = DaoOptions.DEFAULT_SCRUB_PERIOD.toSeconds();
    /** The background scrub's least rate. */
    private static final long MIN_SCRUB_BYTES_PER_SECOND = 64 << 10;

    /** The store, and the scrub beside it. */
    @State(Scope.Benchmark)
    public static class ScrubbedStore {
        @Param({"off", "default", "unlimited"})
        public String scrub;

        /** Stored keys. */
        @Param({"1000000"})
        public int keys;

        Dao dao;
        private Thread scrubber;
        private volatile boolean stop;

        @Setup(Level.Trial)
        public void open() throws IOException {
            dao = PreloadedStore.open(BenchEngine.LSM, keys, Compression.NONE, BenchValues.RANDOM);
            long rate = switch (scrub) {
                case "off" -> -1;
                case "default" -> Math.max(MIN_SCRUB_BYTES_PER_SECOND,
                        (long) (dao.properties().tableBytes() / DEFAULT_PERIOD_SECONDS));
                case "unlimited" -> 0;
                default -> throw new IllegalArgumentException("scrub " + scrub + ": off, default or unlimited");
            };
            if (rate >= 0) {
                scrubber = new Thread(() -> {
                    try {
                        while (!stop) {
                            dao.scrub(rate);
                        }
                    } catch (IOException | RuntimeException e) {
                        if (!stop) { // else the store's close ended the pass
                            throw new IllegalStateException("the scrub failed", e);
                        }
                    }
                }, "bench-scrub");
                scrubber.setDaemon(true);
                scrubber.start();
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException, InterruptedException {
            stop = true;
            if (scrubber != null) {
                // A pass at the default rate outlasts the trial: the store's close ends it.
                scrubber.join(TimeUnit.SECONDS.toMillis(1));
            }
            if (dao != null) {
                dao.close();
            }
        }
    }

    @Benchmark
    public Entry get(ScrubbedStore store, DaoBenchmark.ThreadState thread) throws IOException {
        BenchKeys.write(thread.random.nextInt(store.keys), thread.readKey);
        return store.dao.get(thread.readKey);
    }
}
