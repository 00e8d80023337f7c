package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.Storage;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.table.SsTableWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/** Writes a sorted stream of entries (a memtable's, or a merge's) as a new table of the store. */
final class TableBuilder {
    private TableBuilder() {
    }

    /** A table just written, and the newest timestamp among the tombstones left out of it. */
    record Built(SsTable table, long newestDroppedTombstone) {
    }

    /** Tables just written, in key order, and the newest timestamp among the tombstones left out of them. */
    record BuiltTables(SsTable[] tables, long newestDroppedTombstone) {
    }

    /**
     * Writes {@code entries} as table {@code number} of {@code dir}, values expired at {@code nowMillis}
     * as tombstones of their timestamps, leaving out the tombstones whose timestamp
     * {@code mayDropTombstone} accepts; the opened table is null if nothing was left to write. Throws
     * {@link CancellationException} (having deleted the partial file) once {@code cancelled}.
     */
    static Built build(Path dir, long number, Iterator<Entry> entries, long expectedKeys, DaoOptions options,
                       BlockCache blocks, long nowMillis, LongPredicate mayDropTombstone, BooleanSupplier cancelled)
            throws IOException {
        return build(dir, number, SortedEntries.of(entries), expectedKeys, options, blocks, nowMillis,
                mayDropTombstone, cancelled, null);
    }

    /** {@link #build}, writing no faster than {@code pacing} allows (null: unlimited). */
    static Built build(Path dir, long number, SortedEntries entries, long expectedKeys, DaoOptions options,
                       BlockCache blocks, long nowMillis, LongPredicate mayDropTombstone, BooleanSupplier cancelled,
                       CompactionPacing pacing) throws IOException {
        Path path = FileNames.table(dir, number);
        long newestDropped = Long.MIN_VALUE;
        try (SsTableWriter writer = new SsTableWriter(options.storage(), path, options.blockSizeBytes(),
                options.bloomBitsPerKey(), expectedKeys, options.compression())) {
            Pacer pacer = new Pacer(pacing, cancelled);
            while (entries.advance()) {
                pacer.step(writer, path);
                boolean tombstone = readsAsTombstone(entries, nowMillis);
                if (tombstone && mayDropTombstone.test(entries.timestamp())) {
                    newestDropped = Math.max(newestDropped, entries.timestamp());
                    continue;
                }
                entries.addTo(writer, tombstone);
            }
            if (writer.entryCount() == 0) {
                return new Built(null, newestDropped);
            }
            writer.finish();
        }
        return new Built(openFinished(options.storage(), path, number, blocks), newestDropped);
    }

    /**
     * {@link #build}, cutting the output into a new table (numbered by {@code numbers}) once one reaches
     * {@code targetBytes}, each with a Bloom filter for {@code keysPerTable} keys; on failure every table
     * written so far is deleted.
     */
    static BuiltTables buildSplit(Path dir, LongSupplier numbers, SortedEntries entries, long keysPerTable,
                                  DaoOptions options, BlockCache blocks, long targetBytes, long nowMillis,
                                  LongPredicate mayDropTombstone, BooleanSupplier cancelled,
                                  CompactionPacing pacing) throws IOException {
        List<SsTable> written = new ArrayList<>();
        long newestDropped = Long.MIN_VALUE;
        SsTableWriter writer = null;
        Path path = null;
        long number = -1;
        boolean done = false;
        try {
            Pacer pacer = new Pacer(pacing, cancelled);
            while (entries.advance()) {
                // Before the drop: a long run of dropped tombstones still polls for cancellation.
                pacer.step(writer, path);
                boolean tombstone = readsAsTombstone(entries, nowMillis);
                if (tombstone && mayDropTombstone.test(entries.timestamp())) {
                    newestDropped = Math.max(newestDropped, entries.timestamp());
                    continue;
                }
                if (writer == null) {
                    number = numbers.getAsLong();
                    path = FileNames.table(dir, number);
                    writer = new SsTableWriter(options.storage(), path, options.blockSizeBytes(),
                            options.bloomBitsPerKey(), keysPerTable, options.compression());
                    pacer.newTable();
                }
                entries.addTo(writer, tombstone);
                if (writer.bytesWritten() >= targetBytes) {
                    written.add(finish(options.storage(), writer, path, number, blocks));
                    writer = null;
                }
            }
            if (writer != null) {
                written.add(finish(options.storage(), writer, path, number, blocks));
                writer = null;
            }
            done = true;
            return new BuiltTables(written.toArray(new SsTable[0]), newestDropped);
        } finally {
            if (!done) {
                if (writer != null) {
                    writer.abort();
                }
                for (SsTable table : written) {
                    VersionSet.discard(table);
                }
            }
        }
    }

    /** Whether the current entry is a tombstone, or a value expired at {@code nowMillis} (as {@link Entry#asOf}). */
    private static boolean readsAsTombstone(SortedEntries entries, long nowMillis) {
        return entries.isTombstone() || entries.expiresAtMillis() <= nowMillis;
    }

    private static SsTable finish(Storage storage, SsTableWriter writer, Path path, long number, BlockCache blocks)
            throws IOException {
        try (writer) {
            writer.finish();
        }
        return openFinished(storage, path, number, blocks);
    }

    /**
     * Opens the table just finished at {@code path}, or deletes it if it cannot be opened (no mapping
     * left, say): no version lists it yet, and nothing else would delete it before the store reopens.
     */
    private static SsTable openFinished(Storage storage, Path path, long number, BlockCache blocks)
            throws IOException {
        SsTable table;
        try {
            table = SsTable.open(storage, path, number, blocks);
        } catch (IOException | RuntimeException | Error e) {
            try {
                storage.delete(path);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        // Just written through the page cache, so normally resident: reads need not wait for a check.
        table.checkResidency();
        return table;
    }

    /**
     * Every 256 entries read, charges the bytes written since the last charge to the pacing (if any);
     * every 1024, checks for cancellation. One per build, told when a new table starts; between
     * tables (no writer) it only checks for cancellation.
     */
    private static final class Pacer {
        private final CompactionPacing pacing;
        private final BooleanSupplier cancelled;
        private long seen;
        private long charged;

        Pacer(CompactionPacing pacing, BooleanSupplier cancelled) {
            this.pacing = pacing;
            this.cancelled = cancelled;
        }

        void newTable() {
            charged = 0;
        }

        void step(SsTableWriter writer, Path path) throws CancellationException {
            if ((++seen & 255) != 0) {
                return;
            }
            if (pacing != null && writer != null) {
                long written = writer.bytesWritten();
                if (!pacing.charge(written - charged, cancelled)) {
                    throw new CancellationException("table " + path + " abandoned: store closing");
                }
                charged = written;
            }
            if ((seen & 1023) == 0 && cancelled.getAsBoolean()) {
                throw new CancellationException((writer == null ? "compaction" : "table " + path)
                        + " abandoned: store closing");
            }
        }
    }
}
