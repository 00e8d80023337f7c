package io.kvstore.core.internal.lsm;

import io.kvstore.core.CorruptionException;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.ScrubReport;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetLane;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.util.ByteRateLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;

/**
 * Reads every live table through a channel of its own and checks every checksum it holds
 * ({@link SsTable#scrub}), so that damage in blocks no read touches is found while other replicas
 * still hold the data; a damaged table is handed to the store, which quarantines it. A pass is run
 * when asked ({@link #scrub}, on the caller's thread) or in the background once per
 * {@link DaoOptions#scrubPeriod()}, at the table bytes over the period (at least
 * {@link #MIN_BYTES_PER_SECOND}) on a thread of its own at the background priority, so that it takes
 * little of the disk from requests and none of the compaction thread's time. With a
 * {@link DaoOptions#backgroundBudget()} a pass also draws its bytes from the budget's scrub lane, so
 * that it yields to requests and to the node's other background work as well.
 *
 * <p>A pass does not hold the tables it has yet to check: a table compacted away before its turn is
 * skipped (its data is in tables the next pass checks), so that a pass of a week never keeps obsolete
 * files on the disk.
 */
final class Scrubber {
    private static final Logger LOG = LoggerFactory.getLogger(Scrubber.class);

    /** Slowest background scrub, so that a small store's pass still ends well within its period. */
    static final long MIN_BYTES_PER_SECOND = 64 << 10;
    /** Longest wait after the store opens before the first background pass. */
    static final long MAX_FIRST_DELAY_NANOS = TimeUnit.HOURS.toNanos(1);

    private final DaoOptions options;
    private final VersionSet versions;
    private final StoreState state;
    /** Quarantines a live table found damaged; the interval refused for it, or null. */
    private final BiFunction<SsTable, CorruptionException, QuarantinedInterval> damaged;
    /** Null when the background scrub is off. */
    private final ScheduledThreadPoolExecutor thread;
    private final LongAdder scrubbedBytes = new LongAdder();
    /** Null without a background budget. */
    private final BudgetLane lane;
    private volatile ScrubReport latest;

    Scrubber(DaoOptions options, VersionSet versions, StoreState state,
             BiFunction<SsTable, CorruptionException, QuarantinedInterval> damaged) {
        this.options = options;
        this.versions = versions;
        this.state = state;
        this.damaged = damaged;
        this.lane = options.backgroundBudget() == null ? null : options.backgroundBudget().lane(BackgroundWork.SCRUB, 0);
        if (options.scrubPeriod().isZero()) {
            this.thread = null;
        } else {
            this.thread = new ScheduledThreadPoolExecutor(1, options.backgroundPriority().threadFactory("kvstore-scrub"));
            thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        }
    }

    /** Schedules the first background pass (none if the background scrub is off). */
    void start() {
        if (thread != null) {
            long delay = Math.min(options.scrubPeriod().toNanos(), MAX_FIRST_DELAY_NANOS);
            schedule(delay);
        }
    }

    /** The pass under way, or the last one; null if none ran. */
    ScrubReport latest() {
        return latest;
    }

    /** Bytes of tables checked by every pass since the store opened. */
    long scrubbedBytes() {
        return scrubbedBytes.sum();
    }

    /** Runs a pass now on the calling thread, at most {@code bytesPerSecond} (0: no limit). */
    ScrubReport scrub(long bytesPerSecond) {
        return pass(bytesPerSecond <= 0 ? null : new ByteRateLimiter(bytesPerSecond));
    }

    /** Stops the background scrub: a pass under way ends at its next block (the store is closed by then). */
    void shutdown() {
        if (thread != null) {
            thread.shutdown();
        }
    }

    void shutdownAndWait() {
        if (thread != null) {
            thread.shutdown();
            try {
                thread.awaitTermination(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void schedule(long delayNanos) {
        try {
            thread.schedule(this::backgroundPass, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // shutting down
        }
    }

    private void backgroundPass() {
        if (state.isClosed()) {
            return;
        }
        long start = System.nanoTime();
        long period = options.scrubPeriod().toNanos();
        long bytes = 0;
        for (SsTable table : versions.current().tables) {
            bytes += table.fileSize();
        }
        long rate = Math.max(MIN_BYTES_PER_SECOND, (long) (bytes / (period / 1e9)));
        try {
            ScrubReport report = pass(new ByteRateLimiter(rate));
            LOG.info("Scrubbed {} tables ({} bytes) of {} at {} bytes/s: {} damaged", report.tablesChecked(),
                    report.bytesChecked(), options.dataDirectory(), rate, report.quarantined().size());
        } catch (RuntimeException e) {
            LOG.error("Background scrub of {} failed", options.dataDirectory(), e);
        }
        if (!state.isClosed()) {
            schedule(Math.max(0, start + period - System.nanoTime()));
        }
    }

    /** One pass over the live tables, paced by {@code limiter} (null: not paced). */
    private ScrubReport pass(ByteRateLimiter limiter) {
        long startedAt = options.clock().getAsLong();
        SsTable[] tables = versions.current().tables;
        long bytes = 0;
        for (SsTable table : tables) {
            bytes += table.fileSize();
        }
        List<QuarantinedInterval> found = new ArrayList<>();
        int checked = 0;
        long checkedBytes = 0;
        ScrubReport report = new ScrubReport(startedAt, tables.length, bytes, 0, 0, found, false);
        latest = report;
        for (SsTable table : tables) {
            if (state.isClosed()) {
                return report;
            }
            if (!Arrays.asList(versions.current().tables).contains(table)) {
                continue; // compacted away, or quarantined, since the pass started
            }
            long tableBytes;
            try {
                tableBytes = SsTable.scrub(options.storage(), table.path(),
                        n -> !state.isClosed() && (limiter == null || limiter.acquire(n, state::isClosed))
                                && (lane == null || lane.acquire(n, state::isClosed)));
            } catch (NoSuchFileException e) {
                continue; // deleted since it was found live
            } catch (CorruptionException e) {
                QuarantinedInterval interval = damaged.apply(table, e);
                if (interval != null) {
                    found.add(interval);
                }
                tableBytes = table.fileSize();
            } catch (IOException e) {
                LOG.warn("Could not scrub {}", table.path(), e);
                continue;
            }
            if (tableBytes < 0) {
                return report; // the store closed
            }
            checked++;
            checkedBytes += tableBytes;
            scrubbedBytes.add(tableBytes);
            report = new ScrubReport(startedAt, tables.length, bytes, checked, checkedBytes, found, false);
            latest = report;
        }
        report = new ScrubReport(startedAt, tables.length, bytes, checked, checkedBytes, found, true);
        latest = report;
        return report;
    }
}
