package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;

import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The writers' rate under leveled compaction as a function of the {@link CompactionDebt}: unlimited up
 * to {@link #SOFT_FACTOR} times {@link DaoOptions#levelBaseBytes()} of debt, then falling in proportion
 * to the debt, linearly, from the rate the writers had before it (or
 * {@link DaoOptions#delayedWriteBytesPerSecond()} if that is higher) down to
 * {@link WriteController#MIN_DELAYED_WRITE_BYTES_PER_SECOND} at {@link #HARD_FACTOR} times. So a load
 * that outruns compaction is slowed a little from the moment its debt passes the soft limit and more
 * the further it falls behind, settling where compaction keeps up, instead of running at full speed
 * into level 0's stop and leaving the debt to whatever writes come next (docs/TUNING.md, compaction
 * debt). The rate is continuous in the debt, which changes by a table at a time: no step for a writer
 * to fall off.
 */
final class DebtSlowdown {
    /** Debt, in base level sizes, from which writers are slowed. */
    static final int SOFT_FACTOR = 4;
    /** Debt, in base level sizes, at which the writers' rate reaches its floor. */
    static final int HARD_FACTOR = 16;
    /** Length of the windows in which the writers' rate is measured. */
    private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** Weight of the newest window in the writers' rate. */
    private static final double NEWEST_WEIGHT = 0.3;

    private final int trigger;
    private final long levelBaseBytes;
    private final long soft;
    private final long hard;
    private final long minRate;
    private final long delayedRate;
    private final LongSupplier nanoClock;
    private final LongAdder written = new LongAdder();
    private final AtomicLong windowStart;
    /**
     * The debt of one version, so that it is computed once per version; weakly, as a version holds its
     * memtables and tables, which must go once the store has moved past them.
     */
    private volatile VersionDebt last = new VersionDebt(new WeakReference<>(null), 0);
    /** The writers' rate, bytes per second, measured while they were not slowed by debt. */
    private volatile double writersRate;

    DebtSlowdown(DaoOptions options) {
        this(options.compactionTrigger(), options.levelBaseBytes(), options.delayedWriteBytesPerSecond(), System::nanoTime);
    }

    DebtSlowdown(int trigger, long levelBaseBytes, long delayedWriteBytesPerSecond, LongSupplier nanoClock) {
        this.trigger = trigger;
        this.levelBaseBytes = levelBaseBytes;
        this.soft = SOFT_FACTOR * levelBaseBytes;
        this.hard = HARD_FACTOR * levelBaseBytes;
        this.minRate = Math.min(delayedWriteBytesPerSecond, WriteController.MIN_DELAYED_WRITE_BYTES_PER_SECOND);
        this.delayedRate = delayedWriteBytesPerSecond;
        this.writersRate = delayedWriteBytesPerSecond;
        this.nanoClock = nanoClock;
        this.windowStart = new AtomicLong(nanoClock.getAsLong());
    }

    /** Counts {@code bytes} a writer wrote. */
    void written(long bytes) {
        written.add(bytes);
    }

    /** The compaction debt of {@code v}. */
    long debt(Version v) {
        VersionDebt known = last;
        if (known.version.get() == v) {
            return known.debt;
        }
        long computed = CompactionDebt.of(v, trigger, levelBaseBytes);
        last = new VersionDebt(new WeakReference<>(v), computed);
        return computed;
    }

    /** The rate all writers together may write at with {@code v}'s debt; {@link Long#MAX_VALUE} for no limit. */
    long rate(Version v) {
        return rateFor(debt(v));
    }

    /** The rate at {@code debt}, measuring the writers' rate while it is under the soft limit. */
    long rateFor(long debt) {
        measure(debt < soft);
        return rateAt(debt, (long) writersRate);
    }

    /** The writers' rate, bytes per second, as last measured while they were not slowed by debt. */
    long writersRate() {
        return (long) writersRate;
    }

    /**
     * The rate at {@code debt} for writers that wrote {@code writersRate} bytes per second before they were
     * slowed: the higher of that and the configured delayed-write rate at the soft limit, the floor at
     * the hard limit, linear between.
     */
    long rateAt(long debt, long writersRate) {
        if (debt < soft) {
            return Long.MAX_VALUE;
        }
        if (debt >= hard) {
            return minRate;
        }
        double left = (hard - debt) / (double) (hard - soft);
        return Math.max(minRate, (long) (Math.max(writersRate, delayedRate) * left));
    }

    /** Closes a measuring window once it is over; the writers' rate changes only while they are not slowed. */
    private void measure(boolean unslowed) {
        long start = windowStart.get();
        long now = nanoClock.getAsLong();
        long elapsed = now - start;
        if (elapsed < WINDOW_NANOS || !windowStart.compareAndSet(start, now)) {
            return;
        }
        long bytes = written.sumThenReset();
        if (unslowed) {
            double rate = bytes * (double) TimeUnit.SECONDS.toNanos(1) / elapsed;
            writersRate = Math.max(minRate, (1 - NEWEST_WEIGHT) * writersRate + NEWEST_WEIGHT * rate);
        }
    }

    private record VersionDebt(WeakReference<Version> version, long debt) {
    }
}
