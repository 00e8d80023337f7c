package io.kvstore.core.internal.lsm;

import io.kvstore.core.internal.table.SsTable;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Decides which point reads may run on a thread that must not block (an event loop): those whose
 * tables were wholly in memory at the last residency check. The check asks the OS about every live
 * table (mincore, through {@link SsTable#checkResidency()}), so it runs on a thread that may block,
 * at most once per {@link #MIN_INTERVAL_NANOS} while such reads come, and never more than
 * {@link #DUTY}-th of the time: a small, bounded share of a core however large the store.
 */
final class ResidencyPolicy {
    /** Shortest interval between residency checks while reads come through the event loop. */
    static final long MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A residency check is followed by this many times its own duration without one. */
    static final long DUTY = 100;

    private final Supplier<SsTable[]> liveTables;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile long nextCheck = System.nanoTime();

    /** A policy over the tables {@code liveTables} returns at each check. */
    ResidencyPolicy(Supplier<SsTable[]> liveTables) {
        this.liveTables = liveTables;
    }

    /** Whether a read that must not block may consult {@code table}. */
    boolean mayRead(SsTable table) {
        return table.isResident();
    }

    /** Starts a residency check on {@code mayBlock} if one is due and none is running. */
    void scheduleCheck(Executor mayBlock) {
        if (System.nanoTime() - nextCheck < 0 || !running.compareAndSet(false, true)) {
            return;
        }
        try {
            mayBlock.execute(this::check);
        } catch (RuntimeException rejected) {
            running.set(false);
        }
    }

    private void check() {
        long start = System.nanoTime();
        try {
            for (SsTable table : liveTables.get()) {
                table.checkResidency();
            }
        } finally {
            long end = System.nanoTime();
            nextCheck = end + Math.max(MIN_INTERVAL_NANOS, (end - start) * DUTY);
            running.set(false);
        }
    }
}
