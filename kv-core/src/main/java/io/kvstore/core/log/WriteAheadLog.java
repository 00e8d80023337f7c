package io.kvstore.core.log;

import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The write-ahead log of a store: appends each write as one record to the current log file, and
 * moves to a new file when the memtable it covers is frozen. Positions are logical: bytes appended
 * over all files since opening, so one number says how far durability has reached.
 *
 * <p>REQUIRES: {@link #append} and {@link #rotate} are called under the store's write lock;
 * {@link #awaitDurable} is called outside it, so writers share fsyncs.
 */
public final class WriteAheadLog implements Closeable {
    private final LogSyncer syncer;
    /** Whether records go through a mapping (no policy forces the log) or write(2); see {@link LogWriter}. */
    private final boolean mapped;
    /** Writes the zeros of a mapped log's next window ahead of the writers (see {@link LogWriter}). */
    private final ExecutorService zeroer;
    private final Object fileLock = new Object();
    private LogWriter writer;
    private volatile long appended;

    public WriteAheadLog(Path firstFile, SyncPolicy policy, long groupCommitIntervalMillis) throws IOException {
        this.mapped = policy == SyncPolicy.NONE;
        this.zeroer = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "kvstore-log-zeroer");
            thread.setDaemon(true);
            return thread;
        });
        this.writer = new LogWriter(firstFile, mapped, zeroer);
        this.syncer = LogSyncer.forPolicy(policy, groupCommitIntervalMillis, this);
    }

    /** Appends {@code entry}; returns the logical position to pass to {@link #awaitDurable}. */
    public long append(Entry entry) throws IOException {
        long end = appended + writer.append(entry);
        appended = end;
        return end;
    }

    /** Waits until the record ending at {@code position} is as durable as the sync policy promises. */
    public void awaitDurable(long position) throws IOException {
        syncer.awaitDurable(position);
    }

    /** Closes the current file (forcing it first unless the policy is NONE) and continues in {@code next}. */
    public void rotate(Path next) throws IOException {
        LogWriter fresh = new LogWriter(next, mapped, zeroer);
        synchronized (fileLock) {
            LogWriter old = writer;
            if (syncer.forcesOnRotation()) {
                old.force();
            }
            writer = fresh;
            old.close();
        }
        if (syncer.forcesOnRotation()) {
            syncer.markDurable(appended);
        }
    }

    public Path currentFile() {
        return writer.path();
    }

    long appendedPosition() {
        return appended;
    }

    /** Forces the current file; returns the logical position now durable. */
    long forceCurrent() throws IOException {
        synchronized (fileLock) {
            long covered = appended;
            writer.force();
            return covered;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (syncer.forcesOnRotation()) {
                syncer.markDurable(forceCurrent());
            }
        } finally {
            syncer.close();
            synchronized (fileLock) {
                writer.close();
            }
            zeroer.shutdown();
        }
    }
}
