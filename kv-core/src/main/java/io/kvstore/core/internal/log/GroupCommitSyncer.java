package io.kvstore.core.internal.log;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@link io.kvstore.core.SyncPolicy#GROUP_COMMIT}: a background thread forces the log every
 * interval when new bytes arrived; writers wait for the first force that covers their record, so
 * concurrent writers share one fsync.
 */
final class GroupCommitSyncer implements LogSyncer {
    private final WriteAheadLog log;
    private final ScheduledExecutorService timer;
    private long durable;
    private IOException failure;
    private boolean closed;

    GroupCommitSyncer(WriteAheadLog log, long intervalMillis) {
        this.log = log;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kvstore-group-commit");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::syncIfBehind, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    private void syncIfBehind() {
        synchronized (this) {
            if (durable >= log.appendedPosition() || failure != null) {
                return;
            }
        }
        try {
            long covered = log.forceCurrent();
            markDurable(covered);
        } catch (IOException e) {
            synchronized (this) {
                failure = e;
                notifyAll();
            }
        }
    }

    @Override
    public synchronized void awaitDurable(long position) throws IOException {
        boolean interrupted = false;
        try {
            while (durable < position) {
                if (failure != null) {
                    throw new IOException("group commit fsync failed", failure);
                }
                if (closed) {
                    throw new IOException("log closed before the write was forced");
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean forcesOnRotation() {
        return true;
    }

    @Override
    public synchronized void markDurable(long position) {
        if (position > durable) {
            durable = position;
            notifyAll();
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        synchronized (this) {
            closed = true;
            notifyAll();
        }
    }
}
