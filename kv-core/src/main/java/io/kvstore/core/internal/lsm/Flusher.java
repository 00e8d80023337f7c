package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoStats;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes frozen memtables to tables, oldest first, on a background thread, and installs each in
 * place of its memtable; then deletes the memtable's log and asks for a compaction. A failed flush
 * stops writes until the store is reopened: the memtable's log still holds its writes.
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
    }

    /** Queues a flush of the oldest frozen memtable. */
    void schedule() throws IOException {
        if (!thread.execute(this::flushOldestFrozen)) {
            throw new IOException("store " + dir + " is closing");
        }
    }

    /** Waits for every flush queued so far. */
    void awaitQueued() throws IOException {
        thread.call(() -> null, "flush");
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
                return;
            }
            Memtable memtable = frozen[frozen.length - 1];
            SsTable table = memtable.isEmpty() ? null : TableBuilder.build(dir, versions.newFileNumber(),
                    memtable.iterator(null, null, Long.MAX_VALUE), memtable.keyCount(), options, blocks, Long.MIN_VALUE,
                    timestamp -> false, () -> false).table();
            synchronized (versions.manifestLock) {
                if (state.isClosed()) {
                    // close() has begun: nothing may be installed any more; this memtable's log stays
                    // and is replayed at the next open.
                    VersionSet.discard(table);
                    return;
                }
                versions.install(v -> v.withFlushed(memtable, table));
            }
            // Counted once installed, so that whoever sees the count also sees the table.
            stats.flushed(table == null ? 0 : table.fileSize());
            options.storage().delete(FileNames.log(dir, memtable.logNumber()));
            afterFlush.run();
        } catch (IOException | RuntimeException e) {
            LOG.error("Flush failed in {}; writes are refused until the store is reopened", dir, e);
            stats.backgroundFailed();
            state.fail(e instanceof IOException ? (IOException) e : new IOException(e));
            versions.wakeWaiters();
        }
    }
}
