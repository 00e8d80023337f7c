package io.kvstore.core.background;

import io.kvstore.core.internal.util.ByteRateLimiter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * One kind of background work's draw on a {@link BackgroundBudget}: the work takes the bytes it reads or
 * writes from here and waits while it is ahead of its share, which the budget sets from its weight, its
 * own cap and which other kinds have work. A lane that drew nothing for {@link #IDLE_NANOS} is idle and
 * its share goes to the others until it draws again. Thread-safe.
 */
public final class BudgetLane {
    /** How long after its last draw a lane still counts as having work. */
    static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    private final BackgroundBudget budget;
    private final BackgroundWork work;
    private final LongSupplier nanoClock;
    private final ByteRateLimiter limiter;
    private final LongAdder consumed = new LongAdder();
    private volatile long capBytesPerSecond;
    /** The share in bytes per second; 0: not limited (an uncapped lane of a fixed budget). */
    private volatile long bytesPerSecond;
    private volatile long lastDrawNanos;
    private volatile boolean busy;
    private volatile LongSupplier backlog = () -> -1;

    BudgetLane(BackgroundBudget budget, BackgroundWork work, long capBytesPerSecond, LongSupplier nanoClock,
               LongConsumer sleeper) {
        this.budget = budget;
        this.work = work;
        this.capBytesPerSecond = capBytesPerSecond;
        this.nanoClock = nanoClock;
        this.limiter = new ByteRateLimiter(Long.MAX_VALUE / 4, nanoClock, sleeper::accept);
    }

    public BackgroundWork work() {
        return work;
    }

    /** This kind's own upper bound in bytes per second; 0: none but the budget's. */
    public long capBytesPerSecond() {
        return capBytesPerSecond;
    }

    /** The share this lane may use now, in bytes per second; 0: not limited. */
    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Bytes drawn since the lane was made, waited for or not. */
    public long consumedBytes() {
        return consumed.sum();
    }

    /** Bytes of work waiting for this lane as its work last reported them; -1 if unknown. */
    public long backlogBytes() {
        return backlog.getAsLong();
    }

    /** Where {@link #backlogBytes()} reads the work waiting (-1: unknown); it must be cheap and never block. */
    public void backlog(LongSupplier backlogBytes) {
        this.backlog = backlogBytes;
    }

    /**
     * Takes {@code bytes}, waiting as long as this lane's share requires; returns early (false) once
     * {@code cancelled} says so.
     */
    public boolean acquire(long bytes, BooleanSupplier cancelled) {
        drew(bytes);
        return bytesPerSecond == 0 || limiter.acquire(bytes, cancelled);
    }

    /** {@link #acquire(long, BooleanSupplier)} without cancellation: for scans that end on their own. */
    public void acquire(long bytes) {
        acquire(bytes, () -> false);
    }

    /**
     * Counts {@code bytes} this lane's work used without waiting for them: work that is paced by
     * {@link #bytesPer} instead, or exempt from the budget for now (a compaction that is behind).
     */
    public void consumed(long bytes) {
        drew(bytes);
    }

    /** The bytes this lane's share allows in {@code periodNanos}, at least one: for work that runs in periods. */
    public long bytesPer(long periodNanos) {
        long rate = bytesPerSecond;
        if (rate == 0) {
            return Long.MAX_VALUE;
        }
        return Math.max(1, (long) (rate * (periodNanos / 1e9)));
    }

    /** Whether this lane drew within {@link #IDLE_NANOS} of {@code nowNanos}. */
    boolean busy(long nowNanos) {
        return busy && nowNanos - lastDrawNanos < IDLE_NANOS;
    }

    /** Marks the lane idle if it drew nothing lately; whether it changed. */
    boolean idleIfQuiet(long nowNanos) {
        if (busy && nowNanos - lastDrawNanos >= IDLE_NANOS) {
            busy = false;
            return true;
        }
        return false;
    }

    void cap(long capBytesPerSecond) {
        this.capBytesPerSecond = capBytesPerSecond;
    }

    /** Sets the share ({@code 0}: not limited). Called by the budget under its lock. */
    void share(long bytesPerSecond) {
        if (bytesPerSecond > 0) {
            limiter.setBytesPerSecond(bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
    }

    private void drew(long bytes) {
        consumed.add(bytes);
        lastDrawNanos = nanoClock.getAsLong();
        if (!busy) {
            busy = true;
            budget.reallocate();
        }
    }
}
