package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a batch of entries, in strictly increasing key order, as tables placed straight into the levels
 * of leveled compaction: no log record, no memtable, no flush. The tables go to the deepest level where
 * they overlap no table and no running compaction's output, as RocksDB places an ingested file; if every
 * level from 1 down meets them, to level 0 as its oldest tables, inherited (writers are not held back
 * for them; compaction moves them into the levels one at a time). Reads resolve versions by timestamp
 * across every source, so an ingested version wins or loses against the store's as an upsert of it would
 * wherever its table lies; compaction does too, and it keeps a tombstone while a table outside its inputs
 * (an ingested one included) may hold an older version of the key.
 */
final class Ingestion {
    private static final Logger LOG = LoggerFactory.getLogger(Ingestion.class);

    private final DaoOptions options;
    private final VersionSet versions;
    private final BlockCache blocks;
    private final StoreState state;
    /** The compaction running now, or null: its output level must not gain a table across its key range. */
    private final Supplier<Compaction> running;

    Ingestion(DaoOptions options, VersionSet versions, BlockCache blocks, StoreState state, Supplier<Compaction> running) {
        this.options = options;
        this.versions = versions;
        this.blocks = blocks;
        this.state = state;
        this.running = running;
    }

    /**
     * Writes {@code entries} (strictly increasing keys, checked by the caller) as tables and installs them.
     *
     * @return the level they were placed at
     */
    int ingest(List<Entry> entries) throws IOException {
        state.ensureWritable();
        long bytes = 0;
        for (Entry entry : entries) {
            bytes += entry.key().length + (entry.isTombstone() ? 0 : entry.value().length) + 32L;
        }
        String what = "ingestion of " + entries.size() + " entries";
        try (SpaceLedger.Reservation reserved = state.space().reserveForCompaction(bytes, what)) {
            return ingestReserved(entries);
        } catch (IOException e) {
            IOException full = SpaceLedger.noSpaceOr(e, what);
            if (!(full instanceof InsufficientStorageException)) {
                // As a failed compaction: a table or the manifest could not be written, or an fsync failed;
                // writes stop rather than go on to a disk that fails (docs/DESIGN.md).
                state.fail(new IOException("the " + what + " of " + options.dataDirectory() + " failed", e));
                versions.wakeWaiters();
            }
            throw full;
        }
    }

    private int ingestReserved(List<Entry> entries) throws IOException {
        SsTable[] tables;
        try {
            tables = TableBuilder.buildSplit(options.dataDirectory(), versions::newFileNumber,
                    SortedEntries.of(entries.iterator()), entries.size(), options, blocks, options.targetTableBytes(),
                    options.clock().getAsLong(), timestamp -> false, state::isClosed, null).tables();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (tables.length == 0) {
            return -1;
        }
        int level;
        synchronized (versions.manifestLock) {
            if (state.isClosed()) {
                discard(tables);
                throw new CancellationException("ingestion into " + options.dataDirectory() + " abandoned: store closed");
            }
            level = levelFor(versions.current(), tables[0].firstKey(), tables[tables.length - 1].lastKey(), running.get());
            try {
                versions.install(v -> v.withIngested(tables, level));
            } catch (IOException | RuntimeException e) {
                try {
                    for (SsTable table : tables) {
                        if (!Manifest.lists(options.storage(), options.dataDirectory(), table.fileNumber())) {
                            VersionSet.discard(table);
                        }
                    }
                } catch (IOException | RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
        }
        LOG.debug("Ingested {} entries into {} tables at level {} of {}", entries.size(), tables.length, level,
                options.dataDirectory());
        return level;
    }

    /**
     * The deepest level, from {@link LevelTargets#LAST_LEVEL} (or the deepest holding a table) up to 1,
     * with no table meeting {@code [first, last]} and not the output level of {@code compaction} when the
     * key range of its inputs meets that interval; 0 if there is none.
     */
    static int levelFor(Version v, byte[] first, byte[] last, Compaction compaction) {
        int deepest = Math.max(LevelTargets.LAST_LEVEL, v.deepestLevel());
        for (int level = deepest; level >= 1; level--) {
            if (compaction != null && compaction.outputLevel() == level && meets(compaction.inputs(), first, last)) {
                continue;
            }
            if (!v.levelMeets(level, first, last)) {
                return level;
            }
        }
        return 0;
    }

    /** Whether the key range the tables of {@code tables} span together meets {@code [first, last]}. */
    private static boolean meets(SsTable[] tables, byte[] first, byte[] last) {
        if (tables.length == 0) {
            return false;
        }
        byte[] from = tables[0].firstKey();
        byte[] to = tables[0].lastKey();
        for (SsTable table : tables) {
            from = Arrays.compareUnsigned(table.firstKey(), from) < 0 ? table.firstKey() : from;
            to = Arrays.compareUnsigned(table.lastKey(), to) > 0 ? table.lastKey() : to;
        }
        return Arrays.compareUnsigned(from, last) <= 0 && Arrays.compareUnsigned(to, first) >= 0;
    }

    private static void discard(SsTable[] tables) throws IOException {
        for (SsTable table : tables) {
            VersionSet.discard(table);
        }
    }
}
