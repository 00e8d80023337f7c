package io.kvstore.core.internal.log;

import io.kvstore.core.DaoStats;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.Storage;
import io.kvstore.core.SyncPolicy;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.SyncFailedException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead log of a store: appends each write as one record to the current log file, and
 * moves to a new file when the memtable it covers is frozen. Positions are logical: bytes appended
 * over all files since opening, so one number says how far durability has reached.
 *
 * <p>REQUIRES: {@link #append} and {@link #rotate} are called under the store's write lock;
 * {@link #awaitDurable} is called outside it, so writers share fsyncs.
 */
public final class WriteAheadLog implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
    private final Storage storage;
    private final LogSyncer syncer;
    private final DaoStats stats;
    /** Whether records go through a mapping (no policy forces the log) or write(2); see {@link LogWriter}. */
    private final boolean mapped;
    /** Writes the zeros of a mapped log's next window ahead of the writers (see {@link LogWriter}). */
    private final ExecutorService zeroer;
    private final Object fileLock = new Object();
    /** The file appended to; null until the first append makes {@link #firstFile} (see the constructor). */
    private LogWriter writer;
    /** The file the first append makes, while the disk had no room for it when the log was opened. GUARDED_BY fileLock. */
    private Path firstFile;
    private volatile long appended;
    /**
     * The first failed force, after which the log takes nothing more: Linux reports a failed writeback
     * to one fsync and clears it, so a later fsync may succeed over pages that never reached the device,
     * and a write acknowledged after it would not be durable.
     */
    private volatile IOException forceFailure;
    /** Told of {@link #forceFailure} when it is set. */
    private volatile Consumer<IOException> forceFailureListener = failure -> { };
    /** The next file, made ahead on the zeroer by {@link #prepare}; null if none is asked for. */
    private CompletableFuture<LogWriter> prepared;

    public WriteAheadLog(Path firstFile, SyncPolicy policy, long groupCommitIntervalMillis) throws IOException {
        this(firstFile, policy, groupCommitIntervalMillis, new DaoStats());
    }

    /** A log on the real file system that counts its forces in {@code stats}. */
    public WriteAheadLog(Path firstFile, SyncPolicy policy, long groupCommitIntervalMillis, DaoStats stats)
            throws IOException {
        this(Storage.local(), firstFile, policy, groupCommitIntervalMillis, stats);
    }

    /** A log whose files are in {@code storage}, counting its forces in {@code stats}. */
    public WriteAheadLog(Storage storage, Path firstFile, SyncPolicy policy, long groupCommitIntervalMillis,
                         DaoStats stats) throws IOException {
        this.storage = storage;
        this.stats = stats;
        this.mapped = policy == SyncPolicy.NONE;
        this.zeroer = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "kvstore-log-zeroer");
            thread.setDaemon(true);
            return thread;
        });
        try {
            this.writer = new LogWriter(storage, firstFile, mapped, zeroer);
        } catch (InsufficientStorageException e) {
            // A store opened on a full disk: it serves reads, and its writes are refused as a full disk's
            // until the first append finds room for the file.
            LOG.warn("The log cannot make {} yet: {}; writes wait for room", firstFile, e.getMessage());
            this.firstFile = firstFile;
        }
        this.syncer = LogSyncer.forPolicy(policy, groupCommitIntervalMillis, this);
    }

    /** Appends {@code entry}; returns the logical position to pass to {@link #awaitDurable}. */
    public long append(Entry entry) throws IOException {
        failIfForceFailed();
        boolean interrupted = HeldInterrupt.hold();
        try {
            long end = appended + (writer == null ? makeFirstFile() : writer).append(entry);
            appended = end;
            return end;
        } finally {
            HeldInterrupt.restore(interrupted);
        }
    }

    /** Makes the log's first file, which the disk had no room for when the log was opened. REQUIRES: as {@link #rotate}. */
    private LogWriter makeFirstFile() throws IOException {
        LogWriter first = new LogWriter(storage, firstFile, mapped, zeroer);
        synchronized (fileLock) {
            writer = first;
            firstFile = null;
        }
        return first;
    }

    /** Waits until the record ending at {@code position} is as durable as the sync policy promises. */
    public void awaitDurable(long position) throws IOException {
        syncer.awaitDurable(position);
    }

    /**
     * Closes the current file (forcing it first unless the policy is NONE) and continues in {@code next},
     * made ahead by {@link #prepare} if it was asked for. Under policy NONE the old file is closed (its
     * zeros cut) on the zeroer: a rotation runs under the store's write lock, which every writer waits for.
     */
    public void rotate(Path next) throws IOException {
        boolean interrupted = HeldInterrupt.hold();
        try {
            rotateHeld(next);
        } finally {
            HeldInterrupt.restore(interrupted);
        }
    }

    private void rotateHeld(Path next) throws IOException {
        LogWriter fresh = takePrepared(next);
        if (fresh == null) {
            fresh = new LogWriter(storage, next, mapped, zeroer);
        }
        LogWriter old;
        synchronized (fileLock) {
            old = writer;
            if (old != null && syncer.forcesOnRotation()) {
                force(old);
            }
            writer = fresh;
            firstFile = null;
        }
        if (old == null) {
            return; // the first file was never made: nothing was appended
        }
        if (syncer.forcesOnRotation()) {
            old.close();
            syncer.markDurable(appended);
        } else {
            closeOnZeroer(old);
        }
    }

    /**
     * Creates {@code file}, the one a later {@link #rotate} will move to, on the zeroer with its first
     * window's zeros written and mapped, so that a rotation, and every writer of the store waiting on it,
     * does not wait for a file to be created and zeroed. REQUIRES: the same external lock as {@link #rotate}.
     * A prepared file left by a crash holds only zeros, which recovery replays as an empty log.
     */
    public void prepare(Path file) {
        try {
            prepared = CompletableFuture.supplyAsync(() -> {
                try {
                    LogWriter next = new LogWriter(storage, file, mapped, zeroer);
                    try {
                        next.prepareFirstWindow();
                    } catch (IOException e) {
                        discard(next); // so that rotate can make it again in line, and fail there with context
                        throw e;
                    }
                    return next;
                } catch (IOException e) {
                    if (e instanceof SyncFailedException) {
                        forceFailed(e); // the directory's fsync: never tried again as if it had not failed
                    }
                    throw new CompletionException(e);
                }
            }, zeroer);
        } catch (RejectedExecutionException e) {
            prepared = null; // closing
        }
    }

    /** The prepared writer for {@code file}, waiting for it if it is still being made; null if there is none. */
    private LogWriter takePrepared(Path file) throws IOException {
        LogWriter ready = takeAnyPrepared();
        if (ready != null && !ready.path().equals(file)) {
            discard(ready);
            return null;
        }
        return ready;
    }

    /** The prepared writer, if any was asked for and making it did not fail (then rotate makes it again, and fails with context). */
    private LogWriter takeAnyPrepared() {
        CompletableFuture<LogWriter> next = prepared;
        prepared = null;
        try {
            return next == null ? null : next.join();
        } catch (CompletionException e) {
            return null;
        }
    }

    private void closeOnZeroer(LogWriter old) throws IOException {
        try {
            zeroer.execute(() -> {
                try {
                    old.close();
                } catch (IOException e) {
                    LOG.warn("Closing {} failed; recovery cuts its zeros instead", old.path(), e);
                }
            });
        } catch (RejectedExecutionException e) {
            old.close();
        }
    }

    private void discard(LogWriter unused) throws IOException {
        unused.close();
        storage.delete(unused.path());
    }

    private void awaitZeroer() throws InterruptedIOException {
        try {
            if (!zeroer.awaitTermination(1, TimeUnit.MINUTES)) {
                LOG.warn("The log's zeroer is still busy after a minute; closing without it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while closing the log");
        }
    }

    /** Waits until the file asked for by {@link #prepare} is made (or failed); for tests. */
    public void awaitPrepared() {
        CompletableFuture<LogWriter> next = prepared;
        if (next != null) {
            next.handle((writer, failure) -> null).join();
        }
    }

    public Path currentFile() {
        synchronized (fileLock) {
            return writer == null ? firstFile : writer.path();
        }
    }

    long appendedPosition() {
        return appended;
    }

    /** Forces the current file; returns the logical position now durable. */
    long forceCurrent() throws IOException {
        synchronized (fileLock) {
            long covered = appended;
            boolean interrupted = HeldInterrupt.hold();
            try {
                if (writer != null) {
                    force(writer);
                }
            } finally {
                HeldInterrupt.restore(interrupted);
            }
            return covered;
        }
    }

    /** Forces {@code file}, unless a force failed before; a failure is kept for every later call. */
    private void force(LogWriter file) throws IOException {
        failIfForceFailed();
        try {
            file.force();
            stats.walSynced();
        } catch (IOException e) {
            forceFailed(e);
            throw e;
        }
    }

    /**
     * Has {@code listener} told of the first failed force, on the thread that met it, so that the store
     * stops its writes then rather than at its next append.
     */
    public void onForceFailure(Consumer<IOException> listener) {
        forceFailureListener = listener;
    }

    /** From now on every append, force and rotation fails with {@code failure} as the cause. */
    void forceFailed(IOException failure) {
        boolean first;
        synchronized (this) {
            first = forceFailure == null;
            if (first) {
                forceFailure = failure;
            }
        }
        if (first) {
            forceFailureListener.accept(failure);
        }
    }

    private void failIfForceFailed() throws IOException {
        IOException failure = forceFailure;
        if (failure != null) {
            throw new IOException("an earlier fsync of the log failed (" + failure.getMessage()
                    + "); writes since may not be on the device", failure);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            // After a failed force there is nothing to force: each writer since was told, and it is not tried again.
            if (syncer.forcesOnRotation() && forceFailure == null) {
                syncer.markDurable(forceCurrent());
            }
        } finally {
            syncer.close();
            synchronized (fileLock) {
                if (writer != null) {
                    writer.close();
                }
            }
            LogWriter unused = takeAnyPrepared();
            zeroer.shutdown();
            awaitZeroer(); // old files are closed there: done before the store's directory is given up
            if (unused != null) {
                discard(unused);
            }
        }
    }
}
