package io.kvstore.core.log;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@link io.kvstore.core.SyncPolicy#GROUP_COMMIT}: a background thread fsyncs every few milliseconds
 * when there is something new; writers wait for the fsync that covers their record, so many writers
 * share one fsync.
 */
final class GroupCommitWalWriter extends WalWriter {
    private final ScheduledExecutorService syncer;
    private long synced;
    private IOException failure;

    GroupCommitWalWriter(Path file, long intervalMillis) throws IOException {
        super(file);
        this.syncer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kv-wal-group-commit");
            t.setDaemon(true);
            return t;
        });
        syncer.scheduleWithFixedDelay(this::syncIfDirty, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    private void syncIfDirty() {
        long covered = written;
        synchronized (this) {
            if (covered <= synced || failure != null) {
                return;
            }
        }
        IOException error = null;
        try {
            channel.force(false);
        } catch (IOException e) {
            error = e;
        }
        synchronized (this) {
            if (error != null) {
                failure = error;
            } else {
                synced = covered;
            }
            notifyAll();
        }
    }

    @Override
    public synchronized void awaitDurable(long position) throws IOException {
        while (synced < position) {
            if (failure != null) {
                throw new IOException("group commit fsync of " + file() + " failed", failure);
            }
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the group commit");
            }
        }
    }

    @Override
    public void close() throws IOException {
        syncer.shutdown();
        try {
            syncer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        syncIfDirty();
        super.close();
    }
}
