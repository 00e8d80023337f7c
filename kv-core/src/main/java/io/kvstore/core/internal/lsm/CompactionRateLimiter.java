package io.kvstore.core.internal.lsm;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Holds compactions to {@link io.kvstore.core.DaoOptions#compactionBytesPerSecond()}: a token bucket
 * filled at that rate, holding at most a tenth of a second of it, from which a compaction takes the
 * bytes it has written and waits while it is empty. So a large compaction is spread over time instead
 * of taking a core, and the disk, from requests in a burst. Flushes are never limited: writers wait
 * for them. Used by one compaction thread at a time.
 */
final class CompactionRateLimiter {
    /** Longest single wait, so that a closing store's compaction notices soon. */
    private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final long bytesPerSecond;
    private final long burstBytes;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private double available;
    private long refilledAt;

    /** A limiter at {@code bytesPerSecond} ({@code > 0}) on the system's clock. */
    CompactionRateLimiter(long bytesPerSecond) {
        this(bytesPerSecond, System::nanoTime, LockSupport::parkNanos);
    }

    CompactionRateLimiter(long bytesPerSecond, LongSupplier nanoClock, Sleeper sleeper) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("bytesPerSecond must be > 0, got " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.burstBytes = Math.max(1, bytesPerSecond / 10);
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
        this.refilledAt = nanoClock.getAsLong();
        this.available = burstBytes;
    }

    /**
     * Takes {@code bytes} just written, waiting as long as the rate requires; returns early (false)
     * once {@code cancelled} says so.
     */
    boolean acquire(long bytes, BooleanSupplier cancelled) {
        refill();
        available -= bytes;
        while (available < 0) {
            if (cancelled.getAsBoolean()) {
                return false;
            }
            long waitNanos = (long) Math.ceil(-available * 1e9 / bytesPerSecond);
            sleeper.sleepNanos(Math.min(waitNanos, MAX_WAIT_NANOS));
            refill();
        }
        return true;
    }

    private void refill() {
        long now = nanoClock.getAsLong();
        long elapsed = now - refilledAt;
        if (elapsed > 0) {
            available = Math.min(burstBytes, available + elapsed * (double) bytesPerSecond / 1e9);
            refilledAt = now;
        }
    }

    /** How the limiter waits (tests replace it). */
    @FunctionalInterface
    interface Sleeper {
        void sleepNanos(long nanos);
    }
}
