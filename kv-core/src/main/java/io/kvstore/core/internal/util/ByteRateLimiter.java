package io.kvstore.core.internal.util;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Holds a stream of bytes to a rate: a token bucket filled at {@code bytesPerSecond}, holding at most a
 * tenth of a second of it, from which each caller takes the bytes it has written (or is about to
 * write) and waits while it is empty. Compactions use one at {@link io.kvstore.core.DaoOptions#compactionBytesPerSecond()},
 * so that a large compaction is spread over time instead of taking a core, and the disk, from requests
 * in a burst (flushes are never limited: writers wait for them); writers share one while level 0 is at
 * the slowdown, at a rate that starts at {@link io.kvstore.core.DaoOptions#delayedWriteBytesPerSecond()}
 * and falls as level 0 grows; each kind of background work draws through one at its share of a
 * {@link io.kvstore.core.background.BackgroundBudget}. Thread-safe: concurrent callers all wait until
 * what they took together has been paid back at the rate.
 */
public final class ByteRateLimiter {
    /** Longest single wait, so that a waiter of a closing store notices soon. */
    private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private long bytesPerSecond;
    private long burstBytes;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private double available;
    private long refilledAt;

    /** A limiter at {@code bytesPerSecond} ({@code > 0}) on the system's clock. */
    public ByteRateLimiter(long bytesPerSecond) {
        this(bytesPerSecond, System::nanoTime, LockSupport::parkNanos);
    }

    /** A limiter at {@code bytesPerSecond} on {@code nanoClock}, waiting by {@code sleeper} (tests pass a simulated pair). */
    public ByteRateLimiter(long bytesPerSecond, LongSupplier nanoClock, Sleeper sleeper) {
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
     * Sets the rate ({@code > 0}) from now on, and the burst with it; what callers took before is paid
     * back at the new rate.
     */
    public synchronized void setBytesPerSecond(long bytesPerSecond) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("bytesPerSecond must be > 0, got " + bytesPerSecond);
        }
        if (bytesPerSecond == this.bytesPerSecond) {
            return;
        }
        refill();
        this.bytesPerSecond = bytesPerSecond;
        this.burstBytes = Math.max(1, bytesPerSecond / 10);
        available = Math.min(available, burstBytes);
    }

    /**
     * Takes {@code bytes}, waiting as long as the rate requires; returns early (false) once
     * {@code cancelled} says so.
     */
    public boolean acquire(long bytes, BooleanSupplier cancelled) {
        return acquireNanos(bytes, cancelled) >= 0;
    }

    /** Takes {@code bytes} if the bucket holds them now, and returns whether it did; never waits. */
    public synchronized boolean tryAcquire(long bytes) {
        refill();
        if (available < bytes) {
            return false;
        }
        available -= bytes;
        return true;
    }

    /**
     * {@link #acquire}, returning the nanoseconds it waited (0 if the bucket held the bytes), or -1 if
     * it returned early because {@code cancelled} said so.
     */
    public long acquireNanos(long bytes, BooleanSupplier cancelled) {
        long start = nanoClock.getAsLong();
        long debtNanos;
        synchronized (this) {
            refill();
            available -= bytes;
            debtNanos = debtNanos();
        }
        if (debtNanos == 0) {
            return 0;
        }
        // Sleeps outside the lock, so that tryAcquire (on an event loop) never waits behind a sleeper.
        while (debtNanos > 0) {
            if (cancelled.getAsBoolean()) {
                return -1;
            }
            sleeper.sleepNanos(Math.min(debtNanos, MAX_WAIT_NANOS));
            synchronized (this) {
                refill();
                debtNanos = debtNanos();
            }
        }
        // The clock's time rather than the slices asked for: a sleep that overran paid back more of the
        // debt than its slice, and the caller waited for all of it.
        return nanoClock.getAsLong() - start;
    }

    /** How long the bucket takes to come back to empty from what callers took beyond it. REQUIRES: this object's lock. */
    private long debtNanos() {
        return available >= 0 ? 0 : (long) Math.ceil(-available * 1e9 / bytesPerSecond);
    }

    /** REQUIRES: this object's lock. */
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
    public interface Sleeper {
        void sleepNanos(long nanos);
    }
}
