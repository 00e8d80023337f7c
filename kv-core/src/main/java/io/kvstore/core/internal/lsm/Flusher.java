package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoStats;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes frozen memtables to tables, oldest first, on a background thread, and installs each in
 * place of its memtable; then deletes the memtable's log and asks for a compaction. A failed flush
 * stops writes until the store is reopened: the memtable's log still holds its writes. A flush that
 * finds the disk full (writing its table or the manifest's new copy) is not a failure: its table is
 * deleted, its memtable stays frozen, and it is tried again every {@link SpaceLedger#RETRY_MILLIS} ms
 * until space returns; meanwhile writers that need it to finish are refused as on a full disk.
 */
final class Flusher {
    private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

    private final DaoOptions options;
    private final Path dir;
    private final VersionSet versions;
    private final BlockCache blocks;
    private final StoreState state;
    private final Runnable afterFlush;
    private final BackgroundThread thread;
    private final DaoStats stats;
    /** Why the oldest frozen memtable waits for space to be flushed, or null. */
    private volatile InsufficientStorageException waitingForSpace;
    /** Whether a flush that waits for space is due to be tried again, so that there is at most one. */
    private final AtomicBoolean retryArmed = new AtomicBoolean();
    private final Executor afterRetryDelay;

    /** {@code afterFlush} runs after each installed flush (it schedules a compaction). */
    Flusher(DaoOptions options, VersionSet versions, BlockCache blocks, StoreState state, DaoStats stats,
            Runnable afterFlush) {
        this.stats = stats;
        this.blocks = blocks;
        this.options = options;
        this.dir = options.dataDirectory();
        this.versions = versions;
        this.state = state;
        this.afterFlush = afterFlush;
        this.thread = new BackgroundThread("kvstore-flush", options.backgroundPriority());
        this.afterRetryDelay = CompletableFuture.delayedExecutor(SpaceLedger.RETRY_MILLIS, TimeUnit.MILLISECONDS,
                thread::execute);
    }

    /** Queues a flush of the oldest frozen memtable. */
    void schedule() throws IOException {
        if (!thread.execute(this::flushOldestFrozen)) {
            throw new IOException("store " + dir + " is closing");
        }
    }

    /**
     * Waits for every flush queued so far, trying a flush that waits for space again first (an asked-for
     * flush does not wait for the timer); fails if the oldest frozen memtable still waits for space.
     */
    void awaitQueued() throws IOException {
        retryIfWaitingForSpace();
        thread.call(() -> null, "flush"); // the flushes of the memtables frozen behind it
        throwIfWaitingForSpace();
    }

    /**
     * Waits for the flushes queued so far, then tries the one that waits for space again, if one does,
     * and waits for it.
     */
    void retryIfWaitingForSpace() throws IOException {
        thread.call(() -> {
            if (waitingForSpace != null) {
                flushOldestFrozen();
            }
            return null;
        }, "flush");
    }

    /** Fails with the full disk a flush met, while its memtable waits for space to be flushed. */
    void throwIfWaitingForSpace() throws InsufficientStorageException {
        InsufficientStorageException waiting = waitingForSpace;
        if (waiting != null) {
            throw new InsufficientStorageException(waiting.getMessage(), waiting);
        }
    }

    void shutdown() {
        thread.shutdown();
    }

    void shutdownAndWait() {
        thread.shutdownAndWait();
    }

    /** Bytes written by flushes since opening (the user data that reached tables). */
    long flushedBytes() {
        return stats.flushedBytes();
    }

    private void flushOldestFrozen() {
        try {
            if (state.failure() != null) {
                return;
            }
            Memtable[] frozen = versions.current().frozen;
            if (frozen.length == 0) {
                waitingForSpace = null;
                return;
            }
            Memtable memtable = frozen[frozen.length - 1];
            SsTable table;
            try (SpaceLedger.Reservation reserved = state.space().reserveForFlush(memtable.sizeBytes())) {
                table = memtable.isEmpty() ? null : TableBuilder.build(dir, versions.newFileNumber(),
                        memtable.iterator(null, null, Long.MAX_VALUE), memtable.keyCount(), options, blocks,
                        Long.MIN_VALUE, timestamp -> false, () -> false).table();
                if (!install(memtable, table)) {
                    return;
                }
            }
            if (waitingForSpace != null) {
                waitingForSpace = null;
                LOG.info("Flushes of {} go on: the disk has room again", dir);
                // The flushes of the memtables frozen behind it failed while it waited: queue them again.
                for (int i = 1; i < frozen.length; i++) {
                    thread.execute(this::flushOldestFrozen);
                }
            }
            // Counted once installed, so that whoever sees the count also sees the table.
            stats.flushed(table == null ? 0 : table.fileSize());
            options.storage().delete(FileNames.log(dir, memtable.logNumber()));
            afterFlush.run();
        } catch (IOException e) {
            IOException full = SpaceLedger.noSpaceOr(e, "flush of a memtable");
            if (full instanceof InsufficientStorageException waiting) {
                waitForSpace(waiting);
                return;
            }
            failed(e);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /**
     * Installs {@code table} in place of {@code memtable}; false, having deleted the table, if the store
     * is closing. A manifest that could not be written deletes the table too unless the manifest on
     * disk lists it after all, so that a flush tried again leaves no tables behind.
     */
    private boolean install(Memtable memtable, SsTable table) throws IOException {
        synchronized (versions.manifestLock) {
            if (state.isClosed()) {
                // close() has begun: nothing may be installed any more; this memtable's log stays
                // and is replayed at the next open.
                VersionSet.discard(table);
                return false;
            }
            try {
                versions.install(v -> v.withFlushed(memtable, table));
            } catch (IOException | RuntimeException e) {
                try {
                    if (table != null && !Manifest.lists(options.storage(), dir, table.fileNumber())) {
                        VersionSet.discard(table);
                    }
                } catch (IOException | RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            return true;
        }
    }

    /** The flush found the disk full: its memtable stays frozen, and it is tried again after a delay. */
    private void waitForSpace(InsufficientStorageException full) {
        if (waitingForSpace == null) {
            LOG.warn("Flush of {} waits for space: {}", dir, full.getMessage());
        }
        waitingForSpace = full;
        versions.wakeWaiters(); // writers waiting for room among the frozen memtables are refused
        if (!state.isClosed() && retryArmed.compareAndSet(false, true)) {
            afterRetryDelay.execute(() -> {
                retryArmed.set(false);
                flushOldestFrozen();
            });
        }
    }

    private void failed(Exception e) {
        LOG.error("Flush failed in {}; writes are refused until the store is reopened", dir, e);
        stats.backgroundFailed();
        state.fail(e instanceof IOException ? (IOException) e : new IOException(e));
        versions.wakeWaiters();
    }
}
