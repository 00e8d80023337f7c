package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoStats;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.Storage;
import io.kvstore.core.internal.log.LogReader;
import io.kvstore.core.internal.log.WriteAheadLog;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Brings a store's directory back to a consistent state at open: reads the manifest, deletes what
 * an interrupted flush or compaction left, opens the live tables, replays the logs newer than the
 * manifest into a table (a torn tail is cut with a warning, corruption fails the open), and starts
 * a new log. A table that fails its checks at open is quarantined ({@link Quarantine}) rather than
 * failing the open; a disk with no room for the tables, the manifest or the log does not fail it either
 * (see {@link #recover}). See docs/FORMAT.md, "Recovery".
 */
final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    /**
     * What recovery hands the store: its first version, the next free file number, its log and the
     * sequence of the last entry its memtables hold.
     */
    record Recovered(Version initial, long nextFileNumber, WriteAheadLog wal, DaoStats stats, long lastSequence) {
    }

    private Recovery() {
    }

    /**
     * Recovers the store in {@code options.dataDirectory()}, its tables caching blocks in {@code blocks}.
     * If the disk has no room for what recovery writes, it starts over writing nothing, so that a store
     * opened on a full disk serves reads and refuses writes until space returns, as a running one does.
     * REQUIRES: its directory lock held.
     */
    static Recovered recover(DaoOptions options, BlockCache blocks, Quarantine quarantine) throws IOException {
        try {
            return recover(options, blocks, quarantine, true);
        } catch (IOException e) {
            if (!(SpaceLedger.noSpaceOr(e, "recovery") instanceof InsufficientStorageException)) {
                throw e;
            }
            LOG.warn("{} opens on a full disk ({}): its logs are replayed into memtables that are flushed once there is"
                    + " room; reads are served, writes are refused until then", options.dataDirectory(), e.getMessage());
            return recover(options, blocks, quarantine, false);
        }
    }

    /**
     * Recovers as {@link #recover(DaoOptions, BlockCache, Quarantine)} says; with {@code writable} false,
     * writes nothing a full disk could refuse: each log is replayed into a frozen memtable of its own
     * and stays until that memtable is flushed, as if the store had not stopped, the manifest is left as
     * it is, and the new log is made by the first write that finds room for it.
     */
    private static Recovered recover(DaoOptions options, BlockCache blocks, Quarantine quarantine, boolean writable)
            throws IOException {
        Storage storage = options.storage();
        Path dir = options.dataDirectory();
        Manifest manifest = Manifest.read(storage, dir);
        if (manifest == null) {
            manifest = Manifest.empty();
        }
        storage.delete(dir.resolve(FileNames.MANIFEST_TMP));
        Set<Long> live = new HashSet<>();
        for (long number : manifest.tables) {
            live.add(number);
        }
        List<Long> logs = new ArrayList<>();
        long maxNumber = 0;
        for (Path file : storage.list(dir)) {
            String name = file.getFileName().toString();
            long table = FileNames.number(name, FileNames.TABLE_SUFFIX);
            long log = FileNames.number(name, FileNames.LOG_SUFFIX);
            if (table >= 0) {
                maxNumber = Math.max(maxNumber, table);
                if (quarantine.holds(table)) {
                    quarantine.moveAside(table); // a crash came between the manifest and the move
                } else if (!live.contains(table)) {
                    LOG.info("Deleting {}: not in the manifest (left by an interrupted flush or compaction)", file);
                    storage.delete(file);
                }
            } else if (log >= 0) {
                maxNumber = Math.max(maxNumber, log);
                if (log < manifest.logNumber) {
                    storage.delete(file);
                } else {
                    logs.add(log);
                }
            }
        }
        logs.sort(null);
        long next = Math.max(manifest.nextFileNumber, maxNumber + 1);

        List<SsTable> tables = new ArrayList<>();
        List<Integer> levels = new ArrayList<>();
        List<Boolean> inherited = new ArrayList<>();
        // Parallel to the manifest's tables: each one opened, or null if it is quarantined.
        SsTable[] opened = new SsTable[manifest.tables.length];
        List<Damaged> damaged = new ArrayList<>();
        for (int i = 0; i < manifest.tables.length; i++) {
            long number = manifest.tables[i];
            if (quarantine.holds(number)) {
                continue; // quarantined just before a crash, which left the manifest listing it
            }
            try {
                opened[i] = SsTable.open(storage, FileNames.table(dir, number), number, blocks);
            } catch (CorruptionException e) {
                damaged.add(new Damaged(i, e));
                continue;
            }
            tables.add(opened[i]);
            levels.add(manifest.levels[i]);
            inherited.add(manifest.inherited[i]);
        }
        for (Damaged d : damaged) {
            quarantineAtOpen(options, quarantine, manifest, opened, d);
        }
        try {
            return writable ? replayIntoTables(options, blocks, logs, next, tables, levels, inherited)
                    : replayIntoMemtables(options, logs, next, tables, levels, inherited);
        } catch (IOException | RuntimeException e) {
            VersionSet.release(tables.toArray(new SsTable[0]));
            throw e;
        }
    }

    /** Replays {@code logs} into level 0 tables, writes the manifest and deletes the logs. */
    private static Recovered replayIntoTables(DaoOptions options, BlockCache blocks, List<Long> logs, long next,
                                              List<SsTable> tables, List<Integer> levels, List<Boolean> inherited)
            throws IOException {
        Storage storage = options.storage();
        Path dir = options.dataDirectory();
        // The logs are replayed into memtables of the running store's size, each written out as a level 0
        // table once full, as the store would have flushed it: one memtable for all the logs a crash left
        // (the active one and every frozen one) could outgrow what a memtable can hold.
        long[] numbers = {next};
        Memtable[] replaying = {new Memtable(-1, options.flushThresholdBytes())};
        long[] sequence = {0};
        for (long number : logs) {
            replay(options, number, entry -> {
                if (replaying[0].sizeBytes() >= options.flushThresholdBytes()) {
                    addFlushed(options, blocks, replaying[0], numbers[0]++, tables, levels, inherited);
                    replaying[0] = new Memtable(-1, options.flushThresholdBytes());
                }
                replaying[0].put(entry, ++sequence[0]);
            });
        }
        if (!replaying[0].isEmpty()) {
            addFlushed(options, blocks, replaying[0], numbers[0]++, tables, levels, inherited);
        }
        next = numbers[0];
        long logNumber = next++;
        Version initial = version(options, logNumber, new Memtable[0], tables, levels, inherited);
        Manifest.of(initial, next, options.compactionStyle() == CompactionStyle.LEVELED).write(storage, dir);
        for (long number : logs) {
            storage.delete(FileNames.log(dir, number));
        }
        LOG.debug("Opened {} with {} tables after replaying {} logs", dir, initial.tables.length, logs.size());
        return recovered(options, initial, next, logNumber, 0);
    }

    /**
     * Replays each of {@code logs} into a frozen memtable of its own, which the store flushes and whose
     * log it then deletes, as it does a memtable frozen while it runs; writes nothing.
     */
    private static Recovered replayIntoMemtables(DaoOptions options, List<Long> logs, long next, List<SsTable> tables,
                                                 List<Integer> levels, List<Boolean> inherited) throws IOException {
        Memtable[] frozen = new Memtable[logs.size()];
        long[] sequence = {0};
        for (int i = 0; i < logs.size(); i++) {
            Memtable memtable = new Memtable(logs.get(i), options.flushThresholdBytes());
            replay(options, logs.get(i), entry -> memtable.put(entry, ++sequence[0]));
            frozen[frozen.length - 1 - i] = memtable; // the newest first
        }
        long logNumber = next++;
        Version initial = version(options, logNumber, frozen, tables, levels, inherited);
        LOG.debug("Opened {} with {} tables and {} logs replayed into memory", options.dataDirectory(),
                initial.tables.length, logs.size());
        return recovered(options, initial, next, logNumber, sequence[0]);
    }

    /** Replays log {@code number} into {@code sink}; a torn tail is cut with a warning. */
    private static void replay(DaoOptions options, long number, LogReader.Sink sink) throws IOException {
        Path file = FileNames.log(options.dataDirectory(), number);
        LogReader.Result result = LogReader.replay(options.storage(), file, sink);
        if (result.tornBytes > 0) {
            // After a crash: a record cut short, or the zeros of the log's last mapped window.
            LOG.warn("Cut a torn or zero-filled tail of {} bytes at offset {} of {}", result.tornBytes,
                    result.validLength, file);
        }
    }

    private static Version version(DaoOptions options, long logNumber, Memtable[] frozen, List<SsTable> tables,
                                   List<Integer> levels, List<Boolean> inherited) {
        int[] levelArray = new int[levels.size()];
        boolean[] inheritedArray = new boolean[levelArray.length];
        for (int i = 0; i < levelArray.length; i++) {
            levelArray[i] = levels.get(i);
            inheritedArray[i] = inherited.get(i);
        }
        return new Version(new Memtable(logNumber, options.flushThresholdBytes()), frozen,
                tables.toArray(new SsTable[0]), levelArray, inheritedArray);
    }

    private static Recovered recovered(DaoOptions options, Version initial, long next, long logNumber, long lastSequence)
            throws IOException {
        DaoStats stats = new DaoStats();
        WriteAheadLog wal = new WriteAheadLog(options.storage(), FileNames.log(options.dataDirectory(), logNumber),
                options.syncPolicy(), options.groupCommitIntervalMillis(), stats);
        return new Recovered(initial, next, wal, stats, lastSequence);
    }

    /** A table of the manifest, its {@code index} there, that did not open: {@code damage} says why. */
    private record Damaged(int index, CorruptionException damage) {
    }

    /**
     * Quarantines a table found damaged at open, so that the store starts without it and refuses its
     * interval: its own key range if its meta block is intact, else under leveled compaction the gap
     * between the tables beside it in its level, else every key.
     */
    private static void quarantineAtOpen(DaoOptions options, Quarantine quarantine, Manifest manifest,
                                         SsTable[] opened, Damaged d) throws IOException {
        long number = manifest.tables[d.index];
        byte[][] range = SsTable.salvageKeyRange(options.storage(), FileNames.table(options.dataDirectory(), number));
        byte[] from = null;
        byte[] to = null;
        if (range != null) {
            from = range[0];
            to = Quarantine.successor(range[1]);
        } else if (manifest.levels[d.index] > 0) {
            int level = manifest.levels[d.index];
            for (int j = d.index - 1; j >= 0 && manifest.levels[j] == level && from == null; j--) {
                from = opened[j] == null ? null : Quarantine.successor(opened[j].lastKey());
            }
            for (int j = d.index + 1; j < opened.length && manifest.levels[j] == level && to == null; j++) {
                to = opened[j] == null ? null : opened[j].firstKey();
            }
        }
        QuarantinedInterval interval = quarantine.record(number, from, to, Quarantine.reason(d.damage),
                options.clock().getAsLong());
        LOG.error("Table {} of {} is damaged ({}): quarantined, key interval {} is refused until healed", number,
                options.dataDirectory(), interval.reason(), interval.describe());
        quarantine.moveAside(number);
    }

    /**
     * Writes {@code memtable} as level 0 table {@code number} of the store in {@code options} and puts it
     * first, as the newest, among {@code tables} (with its level and inheritance).
     */
    private static void addFlushed(DaoOptions options, BlockCache blocks, Memtable memtable, long number,
                                   List<SsTable> tables, List<Integer> levels, List<Boolean> inherited) throws IOException {
        SsTable table = TableBuilder.build(options.dataDirectory(), number, memtable.iterator(null, null, Long.MAX_VALUE),
                memtable.keyCount(), options, blocks, Long.MIN_VALUE, timestamp -> false, () -> false).table();
        tables.add(0, table);
        levels.add(0, 0);
        inherited.add(0, false); // a flush, as if the store had not stopped
    }
}
