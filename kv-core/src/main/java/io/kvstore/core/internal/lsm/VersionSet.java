package io.kvstore.core.internal.lsm;

import io.kvstore.core.Storage;
import io.kvstore.core.internal.table.SsTable;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The store's current {@link Version}, its file numbers, and the manifest that records them; also
 * the lifetime of tables: a table stays on disk while the current version or a snapshot holds it, and
 * is deleted once it has left the live set and the last holder has let go.
 *
 * <p>Readers take {@link #current()} without a lock. Changes are published under the version lock,
 * which is held for no I/O (memtable switches take it under the writers' lock). Flushes and
 * compactions, the only changes a manifest records, also hold {@link #manifestLock} from their
 * manifest write to their switch. Lock order: writers' lock, manifest lock, version lock.
 */
final class VersionSet {
    private final Storage storage;
    private final Path dir;
    private final AtomicLong nextFileNumber;
    private final Object versionLock = new Object();
    /** Serialises flushes and compactions from the manifest write to the switch (see {@link #install}). */
    final Object manifestLock = new Object();
    private volatile Version current;
    /** Whether the store compacts in levels: what its manifest records of level 0 ({@link Manifest#of}). */
    private final boolean leveled;

    VersionSet(Storage storage, Path dir, Version initial, long nextFileNumber, boolean leveled) {
        this.storage = storage;
        this.dir = dir;
        this.leveled = leveled;
        this.current = initial;
        this.nextFileNumber = new AtomicLong(nextFileNumber);
    }

    Version current() {
        return current;
    }

    /** A file number never used before in this store. */
    long newFileNumber() {
        return nextFileNumber.getAndIncrement();
    }

    /** Freezes the active memtable, {@code fresh} taking its place. */
    void switchMemtable(Memtable fresh) {
        synchronized (versionLock) {
            current = current.withNewActive(fresh);
        }
    }

    /**
     * Records in the manifest, then publishes, the version {@code change} makes of the current one.
     * REQUIRES {@link #manifestLock}. The manifest is written outside the version lock: a memtable switch
     * takes that lock while holding the writers' lock, and every writer would otherwise wait out the
     * manifest's two fsyncs whenever a switch met a flush or compaction. Applying {@code change} again
     * to the version current at the switch records the same manifest, since only flushes and
     * compactions, serialised by the manifest lock, change tables or the oldest unflushed memtable; a
     * switch in between only freezes the active memtable and starts a newer one.
     */
    void install(UnaryOperator<Version> change) throws IOException {
        Version planned;
        synchronized (versionLock) {
            planned = change.apply(current);
        }
        Manifest.of(planned, nextFileNumber.get(), leveled).write(storage, dir);
        synchronized (versionLock) {
            Version next = change.apply(current);
            if (next.oldestLogNumber() != planned.oldestLogNumber()
                    || !Arrays.equals(next.tableNumbers(), planned.tableNumbers())
                    || !Arrays.equals(next.levels, planned.levels)
                    || !Arrays.equals(next.inherited, planned.inherited)) {
                throw new IllegalStateException("the version changed under the manifest lock in " + dir);
            }
            current = next;
            versionLock.notifyAll();
        }
    }

    /** A version whose tables are retained, and the last write sequence number a snapshot of it shows. */
    record Snapshot(Version version, long sequence) {
    }

    /**
     * The current version with a reference to each of its tables, taken together with {@code sequence}
     * (read under the version lock, so that no memtable switch or flush falls between the two); the
     * caller {@linkplain #release releases} the tables.
     */
    Snapshot retainCurrent(LongSupplier sequence) {
        synchronized (versionLock) {
            Version v = current;
            long last = sequence.getAsLong();
            for (SsTable table : v.tables) {
                table.retain();
            }
            return new Snapshot(v, last);
        }
    }

    /** Drops one reference to each of {@code tables}; the last reference to an obsolete table deletes it. */
    static void release(SsTable[] tables) {
        IOException failure = null;
        for (SsTable table : tables) {
            try {
                table.release();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw new UncheckedIOException("could not delete an obsolete table", failure);
        }
    }

    /** Tables that left the live set (a compaction's inputs): deleted once no snapshot holds them. */
    static void obsolete(SsTable[] tables) {
        for (SsTable table : tables) {
            table.markObsolete();
        }
        release(tables);
    }

    /** Deletes a table written but never installed (none if {@code table} is null). */
    static void discard(SsTable table) throws IOException {
        if (table != null) {
            table.markObsolete();
            table.release();
        }
    }

    /**
     * Waits until the current version has fewer than {@code max} frozen memtables, or until
     * {@code timeoutNanos} pass (returns false); {@code check} runs before each wait and may throw to
     * stop it (a background failure, a close).
     */
    boolean awaitFrozenBelow(int max, long timeoutNanos, IoCheck check) throws IOException {
        return await(v -> v.frozen.length < max, timeoutNanos, check);
    }

    /**
     * Waits until the current version has fewer than {@code max} tables at level 0 flushed under leveled
     * compaction ({@link Version#flushedLevelZeroTables}), or until {@code timeoutNanos} pass (returns false);
     * {@code check} as for {@link #awaitFrozenBelow}.
     */
    boolean awaitFlushedLevelZeroBelow(int max, long timeoutNanos, IoCheck check) throws IOException {
        return await(v -> v.flushedLevelZeroTables < max, timeoutNanos, check);
    }

    /** Waits until {@code done} holds for the current version (true) or {@code timeoutNanos} pass (false). */
    private boolean await(Predicate<Version> done, long timeoutNanos, IoCheck check) throws IOException {
        synchronized (versionLock) {
            long deadline = System.nanoTime() + timeoutNanos;
            while (!done.test(current)) {
                check.run();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    versionLock.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for background work in " + dir);
                }
            }
            return true;
        }
    }

    /** Wakes writers waiting for background work, to see a failure or a close. */
    void wakeWaiters() {
        synchronized (versionLock) {
            versionLock.notifyAll();
        }
    }

    /**
     * Releases the current version's tables when the store closes. Waits for a flush or compaction
     * still between its manifest write and its switch; none may start after (the caller has closed).
     */
    IOException releaseAll() {
        IOException failure = null;
        synchronized (manifestLock) {
            synchronized (versionLock) {
                for (SsTable table : current.tables) {
                    try {
                        table.release();
                    } catch (IOException e) {
                        if (failure == null) {
                            failure = e;
                        } else {
                            failure.addSuppressed(e);
                        }
                    }
                }
                versionLock.notifyAll();
            }
        }
        return failure;
    }

    /** A check that may fail with an {@link IOException}. */
    @FunctionalInterface
    interface IoCheck {
        void run() throws IOException;
    }
}
