package io.kvstore.bench;

import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Point reads of random present keys ({@link BenchKeys#writeOrdered} indices {@code [0, keys)}) at a
 * fixed total rate from a fixed number of threads, each following its own schedule. A read's latency
 * counts from when it was due, not from when its thread got to it, so a slow read delays the reads
 * behind it and they count that delay (no coordinated omission).
 */
final class OpenLoopReads {
    private final Dao dao;
    private final long keys;
    private final int valueBytes;

    OpenLoopReads(Dao dao, long keys, int valueBytes) {
        this.dao = dao;
        this.keys = keys;
        this.valueBytes = valueBytes;
    }

    /** What a run measured: latencies in microseconds, and reads that found no value of the right size. */
    record Result(Histogram latencyMicros, long reads, long missing) {
    }

    /** Reads at {@code rate} per second from {@code threads} threads; measures after {@code warmupSeconds}. */
    Result run(double rate, int threads, int warmupSeconds, int durationSeconds, long seed) throws InterruptedException {
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
        long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long end = measureFrom + TimeUnit.SECONDS.toNanos(durationSeconds);
        long period = (long) (1e9 * threads / rate);
        List<Lane> lanes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            // Lanes are staggered by one interval of the total rate, so the reads are evenly spread.
            lanes.add(new Lane(start + period * t / threads, period, measureFrom, end, new SplittableRandom(seed + t)));
        }
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(lanes.get(t), "reader-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        Histogram total = new Histogram(3_600_000_000L, 3);
        long reads = 0;
        long missing = 0;
        for (Lane lane : lanes) {
            if (lane.failure != null) {
                throw new UncheckedIOException(lane.failure);
            }
            total.add(lane.latencyMicros);
            reads += lane.reads;
            missing += lane.missing;
        }
        return new Result(total, reads, missing);
    }

    /** One thread's schedule: a read every {@code period} nanoseconds from {@code first} until {@code end}. */
    private final class Lane implements Runnable {
        final Histogram latencyMicros = new Histogram(3_600_000_000L, 3);
        private final long first;
        private final long period;
        private final long measureFrom;
        private final long end;
        private final SplittableRandom random;
        long reads;
        long missing;
        IOException failure;

        Lane(long first, long period, long measureFrom, long end, SplittableRandom random) {
            this.first = first;
            this.period = period;
            this.measureFrom = measureFrom;
            this.end = end;
            this.random = random;
        }

        @Override
        public void run() {
            byte[] key = new byte[BenchKeys.KEY_BYTES];
            try {
                for (long due = first; due < end; due += period) {
                    for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                        LockSupport.parkNanos(wait);
                    }
                    BenchKeys.writeOrdered(random.nextLong(keys), key);
                    Entry entry = dao.get(key);
                    long latency = System.nanoTime() - due;
                    if (due >= measureFrom) {
                        latencyMicros.recordValue(Math.max(0, latency / 1000));
                        reads++;
                        if (entry == null || entry.isTombstone() || entry.value().length != valueBytes) {
                            missing++;
                        }
                    }
                }
            } catch (IOException e) {
                failure = e;
            }
        }
    }
}
