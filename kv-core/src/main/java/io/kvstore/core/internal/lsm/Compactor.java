package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoStats;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.KeyFilter;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.util.MergeIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * Runs compactions on a background thread: those the configured policy ({@link LeveledCompactionPicker}
 * or {@link CompactionPicker}) finds due after each flush and at open, and those asked for
 * ({@link #compactOldest}). Each merges its {@link Compaction}'s tables into tables of the next level,
 * or into one that takes their place, leaves out shadowed versions, writes expired values as
 * tombstones, and leaves out tombstones that shadow nothing and are past their grace; no faster than
 * {@link DaoOptions#compactionBytesPerSecond()} if it is set, nor than their share of
 * {@link DaoOptions#backgroundBudget()} if there is one ({@link CompactionPacing}).
 *
 * <p>Under leveled compaction, when nothing is due but level 0 would be due at rest
 * ({@link LeveledCompactionPicker#pickAtRest}), it checks back after
 * {@link DaoOptions#idleCompactionDelay()}: if no write arrived in between, it compacts what is due at
 * rest, and otherwise checks back again, so a store that keeps being written is compacted by count only.
 */
final class Compactor {
    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

    private final DaoOptions options;
    private final Path dir;
    private final VersionSet versions;
    private final BlockCache blocks;
    private final StoreState state;
    private final WriteController writes;
    private final BackgroundThread thread;
    private final DaoStats stats;
    /** Null when compactions are not rate limited. */
    private final CompactionPacing pacing;
    /** Null under size-tiered compaction. */
    private final LeveledCompactionPicker leveled;
    /** Runs a check for rest on the compaction thread after the idle delay; null when that is off. */
    private final Executor afterIdleDelay;
    /** Whether a check for rest is waiting to run, so that there is at most one. */
    private final AtomicBoolean restCheckArmed = new AtomicBoolean();
    /** Runs compactions again on the compaction thread after {@link SpaceLedger#RETRY_MILLIS}. */
    private final Executor afterSpaceRetry;
    /** Whether a compaction waiting for space is due to be tried again, so that there is at most one. */
    private final AtomicBoolean spaceRetryArmed = new AtomicBoolean();

    /** The compaction running now, or null; written on the compaction thread only. */
    private volatile Compaction running;

    /** Quarantines the table a failed compaction names as damaged; whether it did. */
    private final Predicate<IOException> tableFailed;

    Compactor(DaoOptions options, VersionSet versions, BlockCache blocks, StoreState state, DaoStats stats,
              WriteController writes, Predicate<IOException> tableFailed) {
        this.tableFailed = tableFailed;
        this.stats = stats;
        this.blocks = blocks;
        this.options = options;
        this.dir = options.dataDirectory();
        this.versions = versions;
        this.state = state;
        this.writes = writes;
        this.thread = new BackgroundThread("kvstore-compaction", options.backgroundPriority());
        this.leveled = options.compactionStyle() == CompactionStyle.LEVELED ? new LeveledCompactionPicker(options) : null;
        this.pacing = CompactionPacing.of(options.backgroundBudget(), options.compactionBytesPerSecond(),
                options.compactionTrigger(), () -> versions.current().flushedLevelZeroTables);
        if (options.backgroundBudget() != null) {
            pacing.lane().backlog(this::pendingBytes);
        }
        long idleNanos = options.idleCompactionDelay().toNanos();
        this.afterIdleDelay = leveled == null || idleNanos == 0 ? null
                : CompletableFuture.delayedExecutor(idleNanos, TimeUnit.NANOSECONDS, thread::execute);
        this.afterSpaceRetry = CompletableFuture.delayedExecutor(SpaceLedger.RETRY_MILLIS, TimeUnit.MILLISECONDS,
                thread::execute);
    }

    /** Queues compactions while the picker finds one due (none once the store is closing). */
    void schedule() {
        if (!state.isClosed()) {
            thread.execute(this::compactWhileNeeded);
        }
    }

    /** Compacts the whole store now and waits: into one table, or under leveled compaction into its deepest level. */
    void compactAll() throws IOException {
        if (leveled == null) {
            compactOldest(Integer.MAX_VALUE, () -> { });
            return;
        }
        thread.call(() -> {
            while (true) {
                Compaction job = everything();
                if (job == null || compact(job, () -> { })) {
                    return null;
                }
            }
        }, "compaction");
    }

    /**
     * Compacts the {@code count} oldest tables now and waits, running {@code afterMerge} between each
     * merge and its switch (a test's window).
     */
    void compactOldest(int count, Runnable afterMerge) throws IOException {
        thread.call(() -> {
            while (true) {
                Compaction job = Compaction.oldest(versions.current(), count);
                if (job == null || compact(job, afterMerge)) {
                    return null;
                }
            }
        }, "compaction");
    }

    /**
     * Compacts the whole store now, as {@link #compactAll()} does, leaving out every key {@code keep}
     * rejects (whatever its versions: they shadow nothing a node that gives the key up still serves);
     * returns how many keys it left out. Entries newer than the tables (memtables) are not touched.
     */
    long cleanup(KeyFilter keep) throws IOException {
        KeptKeys kept = new KeptKeys(keep);
        return thread.call(() -> {
            while (true) {
                Compaction job = everything();
                if (job == null) {
                    return 0L;
                }
                if (compact(job, () -> { }, kept)) {
                    return kept.dropped();
                }
            }
        }, "cleanup");
    }

    /** Waits for every compaction queued so far. */
    void awaitQueued() throws IOException {
        thread.call(() -> null, "compaction");
    }

    void shutdown() {
        thread.shutdown();
    }

    void shutdownAndWait() {
        thread.shutdownAndWait();
    }

    /** The compaction running now, or null if none is. */
    Compaction running() {
        return running;
    }

    /** Bytes written by compactions since opening. */
    long compactedBytes() {
        return stats.compactedBytes();
    }

    /**
     * The compaction due now ({@code atRest}: due at rest), or null; when nothing is due but level 0
     * would be at rest, arms a check for rest (not {@code atRest}). Reads the current version in a frame
     * of its own and hands back only the compaction: a version lists memtables, and one held in the
     * caller's frame through a merge that outlives several of them keeps each, long flushed, on the heap.
     */
    private Compaction due(boolean atRest) {
        Version v = versions.current();
        Compaction job = atRest ? leveled.pickAtRest(v) : pick(v);
        if (job == null && !atRest && afterIdleDelay != null && leveled.pickAtRest(v) != null) {
            armRestCheck();
        }
        return job;
    }

    /**
     * The next step of compacting the whole store (see {@link #compactAll}), or null once it is done;
     * reads the version in a frame of its own, as {@link #due} does.
     */
    private Compaction everything() {
        Version v = versions.current();
        return leveled == null ? Compaction.oldest(v, Integer.MAX_VALUE) : LeveledCompactionPicker.all(v);
    }

    /** The compaction the configured policy would run on {@code v} now, or null if none is due. */
    /** Bytes of the input tables of the compaction due now (0 if none): what compactions have to catch up. */
    long pendingBytes() {
        Compaction job = pick(versions.current());
        long bytes = 0;
        if (job != null) {
            for (SsTable table : job.inputs()) {
                bytes += table.fileSize();
            }
        }
        return bytes;
    }

    Compaction pick(Version v) {
        return leveled != null ? leveled.pick(v) : CompactionPicker.pick(v, options.compactionTrigger());
    }

    private void compactWhileNeeded() {
        compactWhileNeeded(false);
    }

    /**
     * Compacts while a compaction is due, by {@link #pick} or, {@code atRest}, by
     * {@link LeveledCompactionPicker#pickAtRest}; then, unless at rest, arms a check for rest if level 0
     * would be due at rest.
     */
    private void compactWhileNeeded(boolean atRest) {
        try {
            while (!state.isClosed() && state.failure() == null) {
                Compaction job = due(atRest);
                if (job == null) {
                    state.space().compactionRuns();
                    return;
                }
                compact(job, () -> { });
                state.space().compactionRuns();
            }
        } catch (InsufficientStorageException e) {
            // Not a failure: the disk is short of room for the output. Waits, without a loop of errors.
            state.space().compactionWaits(e);
            armSpaceRetry();
        } catch (CancellationException e) {
            LOG.debug("Compaction in {} cancelled by close", dir);
        } catch (IOException | RuntimeException e) {
            if (state.isClosed()) {
                LOG.debug("Compaction in {} stopped by close: {}", dir, e.toString());
                return;
            }
            // A failed write has stopped writes (see compact); otherwise reads and writes go on, and
            // tables pile up until the cause is fixed and the store reopened.
            LOG.error("Background compaction failed in {}", dir, e);
            stats.backgroundFailed();
            if (e instanceof IOException failed && tableFailed.test(failed)) {
                schedule(); // without the damaged table
            }
        }
    }

    /** Tries the compactions due again after {@link SpaceLedger#RETRY_MILLIS}, unless a retry is armed already. */
    private void armSpaceRetry() {
        if (!state.isClosed() && spaceRetryArmed.compareAndSet(false, true)) {
            afterSpaceRetry.execute(() -> {
                spaceRetryArmed.set(false);
                compactWhileNeeded(false);
            });
        }
    }

    /** Checks for rest after the idle delay, unless a check is already waiting. */
    private void armRestCheck() {
        if (restCheckArmed.compareAndSet(false, true)) {
            long writesSoFar = writes.visibleSequence();
            afterIdleDelay.execute(() -> checkRest(writesSoFar));
        }
    }

    /**
     * On the compaction thread: compacts what is due at rest if no write arrived since the check was
     * armed ({@code writesThen} writes had), or checks back after another idle delay if writes arrived
     * and level 0 would still be due at rest.
     */
    private void checkRest(long writesThen) {
        restCheckArmed.set(false);
        if (state.isClosed()) {
            return;
        }
        if (writes.visibleSequence() == writesThen) {
            compactWhileNeeded(true);
        } else if (leveled.pickAtRest(versions.current()) != null) {
            armRestCheck();
        }
    }

    /**
     * How many keys an output table of leveled compaction may hold, for its Bloom filter: the target
     * size over the inputs' bytes per entry, with room for smaller entries; at most all of them.
     */
    private long keysPerTable(SsTable[] inputs, long entries) {
        long bytes = 0;
        for (SsTable table : inputs) {
            bytes += table.fileSize();
        }
        double perEntry = Math.max(1.0, bytes / (double) Math.max(1, entries));
        return Math.max(1, Math.min(entries, (long) (2 * options.targetTableBytes() / perEntry)));
    }

    private static void discardAll(SsTable[] tables) throws IOException {
        for (SsTable table : tables) {
            VersionSet.discard(table);
        }
    }

    /**
     * Whether a merge may leave out a tombstone of {@code timestamp}: no newer source may hold a version it
     * must shadow (its timestamp is below {@code dropTombstonesBelow}) and its grace period is over.
     */
    private boolean mayDrop(long timestamp, long dropTombstonesBelow, long graceEndsBeforeMillis) {
        return timestamp < dropTombstonesBelow && options.timestampToMillis().applyAsLong(timestamp) < graceEndsBeforeMillis;
    }

    private static List<CloseableIterator<Entry>> passingIterators(SsTable[] tables) {
        List<CloseableIterator<Entry>> sources = new ArrayList<>(tables.length);
        for (SsTable table : tables) {
            sources.add(table.passingIterator(null, null));
        }
        return sources;
    }

    /** Tombstones written before this instant (wall-clock milliseconds) are past their grace. */
    private long graceEndsBeforeMillis(long now) {
        long grace = options.tombstoneGrace().toMillis();
        return now - grace > now ? Long.MIN_VALUE : now - grace;
    }

    /**
     * Merges {@code job}'s inputs into one table that takes their place ({@code afterMerge} runs between
     * the merge and the switch). Returns false, having installed nothing, if a write that a tombstone
     * left out of the output still had to shadow arrived during the merge; planned again, the
     * compaction keeps that tombstone.
     */
    private boolean compact(Compaction job, Runnable afterMerge) throws IOException {
        return compact(job, afterMerge, null);
    }

    /**
     * {@link #compact(Compaction, Runnable)}, leaving out the keys {@code kept} rejects (null: none), once
     * the space of its output is reserved ({@link SpaceLedger}). A disk without room for it, found before
     * or while the output is written, fails it with an {@link InsufficientStorageException}, its output
     * deleted and its inputs still in place.
     */
    private boolean compact(Compaction job, Runnable afterMerge, KeptKeys kept) throws IOException {
        state.ensureWritable(); // a store whose disk failed writes no more tables
        long inputBytes = 0;
        for (SsTable table : job.inputs()) {
            inputBytes += table.fileSize();
        }
        String what = "compaction of " + job.inputs().length + " tables into level " + job.outputLevel();
        running = job;
        try (SpaceLedger.Reservation reserved = state.space().reserveForCompaction(inputBytes, what)) {
            return compactReserved(job, afterMerge, kept);
        } catch (IOException e) {
            IOException full = SpaceLedger.noSpaceOr(e, what);
            if (!(full instanceof InsufficientStorageException) && !readDamage(e)) {
                // Writing the output or the manifest failed other than for space, or an fsync did: the
                // disk fails. As RocksDB does under its paranoid checks, writes stop (the inputs are
                // intact, reads go on) rather than go on to a disk that fails (docs/DESIGN.md). An
                // input that cannot be read (damage) is quarantined instead, and writes go on.
                state.fail(new IOException("the " + what + " of " + dir + " failed", e));
                versions.wakeWaiters();
            }
            throw full;
        } finally {
            running = null;
        }
    }

    /** Whether {@code failure} is damage met reading an input (a {@link CorruptionException} in its causes). */
    private static boolean readDamage(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CorruptionException) {
                return true;
            }
        }
        return false;
    }

    private boolean compactReserved(Compaction job, Runnable afterMerge, KeptKeys kept) throws IOException {
        SsTable[] inputs = job.inputs();
        long expectedKeys = 0;
        for (SsTable table : inputs) {
            expectedKeys += table.entryCount();
        }
        long now = options.clock().getAsLong();
        long graceEnds = graceEndsBeforeMillis(now);
        LongPredicate mayDropTombstone = timestamp -> mayDrop(timestamp, job.dropTombstonesBelow(), graceEnds);
        SsTable[] outputs;
        long newestDropped;
        // A cleanup filters keys, which takes them as arrays: it merges entries as objects, every other
        // compaction in place.
        MergeIterator merged = null;
        try {
            SortedEntries entries;
            if (kept == null) {
                entries = new CursorMerge(inputs);
            } else {
                merged = new MergeIterator(passingIterators(inputs));
                entries = SortedEntries.of(kept.over(merged));
            }
            if (job.outputLevel() == 0) {
                TableBuilder.Built built = TableBuilder.build(dir, versions.newFileNumber(), entries, expectedKeys,
                        options, blocks, now, mayDropTombstone, state::isClosed, pacing);
                outputs = built.table() == null ? new SsTable[0] : new SsTable[] {built.table()};
                newestDropped = built.newestDroppedTombstone();
            } else {
                TableBuilder.BuiltTables built = TableBuilder.buildSplit(dir, versions::newFileNumber, entries,
                        keysPerTable(inputs, expectedKeys), options, blocks, options.targetTableBytes(), now,
                        mayDropTombstone, state::isClosed, pacing);
                outputs = built.tables();
                newestDropped = built.newestDroppedTombstone();
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            if (merged != null) {
                merged.close();
            }
        }
        afterMerge.run();
        // The tombstones left out were older than every newer source when the merge was planned; a write
        // arriving since (a late replica's, with an older timestamp) may need one to stay hidden. No write
        // may land between this check and the switch, hence the writers' lock, taken only then: every
        // writer waits for the manifest write. Other compactions, like flushes, switch without stopping
        // writers (see VersionSet.install).
        boolean droppedTombstones = newestDropped != Long.MIN_VALUE;
        // The writers' lock before the manifest lock: a writer holds the former while it waits for a
        // flush, which needs the latter.
        if (droppedTombstones) {
            writes.lock();
        }
        try {
            synchronized (versions.manifestLock) {
                if (state.isClosed()) {
                    // close() may have stopped waiting for this compaction and will give the directory up:
                    // nothing may be installed any more. (close() marks the store closed before it takes
                    // the manifest lock to release the tables and then the directory.)
                    discardAll(outputs);
                    throw new CancellationException("compaction of " + dir + " abandoned: store closed");
                }
                Version current = versions.current();
                long shadowedBelow = job.outputLevel() == 0 ? Compaction.minTimestampNewerThan(current, inputs[0])
                        : Compaction.minTimestampOutside(current, inputs);
                if (job.outputLevel() > 0 && outputs.length > 0 && current.levelMeets(job.outputLevel(),
                        outputs[0].firstKey(), outputs[outputs.length - 1].lastKey(), inputs)) {
                    // An ingestion placed a table in the output's key range since the merge was planned.
                    LOG.debug("Compaction of {} tables of {} discarded: a table was ingested into level {} meanwhile",
                            inputs.length, dir, job.outputLevel());
                    discardAll(outputs);
                    return false;
                }
                if (droppedTombstones && newestDropped >= shadowedBelow) {
                    LOG.info("Compaction of {} tables of {} discarded: a write older than a tombstone it left out "
                            + "arrived during the merge", inputs.length, dir);
                    discardAll(outputs);
                    return false;
                }
                try {
                    if (job.outputLevel() == 0) {
                        SsTable output = outputs.length == 0 ? null : outputs[0];
                        versions.install(v -> v.withCompacted(inputs, output));
                    } else {
                        versions.install(v -> v.withLeveled(inputs, outputs, job.outputLevel()));
                    }
                } catch (IOException | RuntimeException e) {
                    // Not installed: delete the outputs, or every retry (on a full disk, say) would leave more.
                    try {
                        for (SsTable output : outputs) {
                            if (!Manifest.lists(options.storage(), dir, output.fileNumber())) {
                                VersionSet.discard(output);
                            }
                        }
                    } catch (IOException | RuntimeException cleanup) {
                        e.addSuppressed(cleanup);
                    }
                    throw e;
                }
            }
        } finally {
            if (droppedTombstones) {
                writes.unlock();
            }
        }
        long written = 0;
        for (SsTable output : outputs) {
            written += output.fileSize();
        }
        stats.compacted(written);
        LOG.debug("Compacted {} tables of {} into {} at level {}", inputs.length, dir, outputs.length, job.outputLevel());
        VersionSet.obsolete(inputs);
        return true;
    }
}
