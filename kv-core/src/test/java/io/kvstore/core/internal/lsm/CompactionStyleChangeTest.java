package io.kvstore.core.internal.lsm;

import io.kvstore.core.Storage;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store written under size-tiered compaction, all its tables at level 0, opens under leveled
 * compaction without holding writers back for those tables, and moves them into levels in the
 * background with every key kept.
 */
class CompactionStyleChangeTest {
    private static final int TRIGGER = 2;
    private static final int KEYS = 3000;
    private static final int SIZE_TIERED_TABLES = 20;
    /** So slow that merging every inherited table at once would outlast the writers' 60 s stall timeout. */
    private static final long SLOW_COMPACTION_BYTES_PER_S = 1 << 10;

    @TempDir
    Path dir;

    private DaoOptions.Builder options(CompactionStyle style) {
        return DaoOptions.builder(dir).compactionStyle(style).compression(Compression.NONE)
                .flushThresholdBytes(64 << 10).targetTableBytes(16 << 10).levelBaseBytes(64 << 10)
                .tombstoneGrace(Duration.ofDays(365)).syncPolicy(SyncPolicy.NONE);
    }

    @Test
    void aSizeTieredStoreReopenedAsLeveledTakesWritesAtOnceAndEndsInLevelsWithEveryKey() throws Exception {
        Random random = new Random(Seeds.seed("CompactionStyleChangeTest"));
        TreeMap<Integer, Entry> model = new TreeMap<>();
        long[] timestamp = {0};
        // A trigger so high that size-tiered compaction leaves every flushed table alone.
        try (LsmDao dao = LsmDao.open(options(CompactionStyle.SIZE_TIERED).compactionTrigger(1000).build())) {
            for (int t = 0; t < SIZE_TIERED_TABLES; t++) {
                writeRandomly(dao, random, model, timestamp, 400);
                dao.flush();
            }
            assertEquals(SIZE_TIERED_TABLES, dao.liveTables().length);
        }
        int stop = WriteController.STOP_FACTOR * TRIGGER;
        assertTrue(SIZE_TIERED_TABLES > stop);

        DaoOptions slow = options(CompactionStyle.LEVELED).compactionTrigger(TRIGGER)
                .compactionBytesPerSecond(SLOW_COMPACTION_BYTES_PER_S).build();
        try (LsmDao dao = LsmDao.open(slow)) {
            assertTrue(levelZeroTables(dao) >= stop, "opened with level 0 past the stop: "
                    + Arrays.toString(dao.liveLevels()));
            // Fewer flushes than the slowdown: writes may go on while the inherited tables move down.
            assertTimeoutPreemptively(Duration.ofSeconds(50), () -> {
                for (int flush = 0; flush < WriteController.SLOWDOWN_FACTOR * TRIGGER - 1; flush++) {
                    writeRandomly(dao, random, model, timestamp, 400);
                    dao.flush();
                }
            }, "writes wait for the tables the store was opened with");
            assertEquals(0, dao.properties().writeStalls(), "no write stalled");
            assertEquals(0, dao.properties().writeStallNanos());
            assertTrue(levelZeroTables(dao) >= stop, "the inherited tables are still moving down");
            checkContents(dao, model);
        }

        try (LsmDao dao = LsmDao.open(options(CompactionStyle.LEVELED).compactionTrigger(TRIGGER).build())) {
            writeRandomly(dao, random, model, timestamp, 400);
            dao.awaitCompactions();
            assertEquals(0, levelZeroTables(dao), "every table in a level: " + Arrays.toString(dao.liveLevels()));
            assertLevelsDoNotOverlap(dao);
            assertEquals(0, dao.properties().writeStalls());
            checkContents(dao, model);
        }
        try (LsmDao dao = LsmDao.open(options(CompactionStyle.LEVELED).compactionTrigger(TRIGGER).build())) {
            checkContents(dao, model);
        }
    }

    @Test
    void everyTableWrittenUnderSizeTieredCompactionIsRecordedAsInherited() throws IOException {
        DaoOptions sizeTiered = options(CompactionStyle.SIZE_TIERED).compactionTrigger(1000).build();
        Random random = new Random(Seeds.seed("CompactionStyleChangeTest.recorded"));
        TreeMap<Integer, Entry> model = new TreeMap<>();
        long[] timestamp = {0};
        for (int open = 0; open < 2; open++) {
            try (LsmDao dao = LsmDao.open(sizeTiered)) {
                for (int t = 0; t < 3; t++) {
                    writeRandomly(dao, random, model, timestamp, 200);
                    dao.flush();
                }
            }
            Manifest manifest = Manifest.read(Storage.local(), dir);
            assertEquals(3 * (open + 1), manifest.tables.length);
            for (int i = 0; i < manifest.tables.length; i++) {
                assertTrue(manifest.inherited[i], "table " + manifest.tables[i] + " of " + Arrays.toString(manifest.tables));
            }
        }
        try (LsmDao dao = LsmDao.open(options(CompactionStyle.LEVELED).compactionTrigger(TRIGGER).build())) {
            dao.awaitCompactions();
            assertEquals(0, levelZeroTables(dao), "every table in a level: " + Arrays.toString(dao.liveLevels()));
            checkContents(dao, model);
        }
    }

    @Test
    void aLeveledStoreReopenedAsSizeTieredMergesWholeLevelsWithEveryKey() throws IOException {
        Random random = new Random(Seeds.seed("CompactionStyleChangeTest.back"));
        TreeMap<Integer, Entry> model = new TreeMap<>();
        long[] timestamp = {0};
        int[] leveledLevels = writeLeveled(random, model, timestamp);
        long deeperTables = Arrays.stream(leveledLevels).filter(level -> level > 0).count();
        assertTrue(deeperTables >= 4, "several tables in levels: " + Arrays.toString(leveledLevels));

        // Each level is one sorted run: merged whole into one table at the oldest input's level, or not at all.
        DaoOptions sizeTiered = options(CompactionStyle.SIZE_TIERED).compactionTrigger(TRIGGER).build();
        try (LsmDao dao = LsmDao.open(sizeTiered)) {
            for (int t = 0; t < 24; t++) {
                writeRandomly(dao, random, model, timestamp, 1000);
                dao.flush();
                dao.awaitCompactions();
                assertLevelsDoNotOverlap(dao);
                assertOnlyLiveTablesOnDisk(dao);
                assertEquals(0, dao.properties().backgroundErrors(), "every compaction installed");
            }
            checkContents(dao, model);
            dao.compact();
            assertEquals(1, dao.liveTables().length, Arrays.toString(dao.liveLevels()));
            assertOnlyLiveTablesOnDisk(dao);
            checkContents(dao, model);
        }
        try (LsmDao dao = LsmDao.open(options(CompactionStyle.LEVELED).compactionTrigger(TRIGGER).build())) {
            checkContents(dao, model);
        }
    }

    /** Writes and flushes a leveled store until it has tables in levels; returns their levels. */
    private int[] writeLeveled(Random random, TreeMap<Integer, Entry> model, long[] timestamp) throws IOException {
        try (LsmDao dao = LsmDao.open(options(CompactionStyle.LEVELED).compactionTrigger(TRIGGER).build())) {
            for (int t = 0; t < 12; t++) {
                writeRandomly(dao, random, model, timestamp, 1000);
                dao.flush();
            }
            dao.awaitCompactions();
            return dao.liveLevels();
        }
    }

    @Test
    void aV1StoreOpenedAsLeveledMovesIntoLevelsWithEveryWrite() throws IOException {
        V1StoreTest.copyV1Store(dir);
        DaoOptions leveled = DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED).compactionTrigger(4).build();
        try (LsmDao dao = LsmDao.open(leveled)) {
            assertTrue(levelZeroTables(dao) > 0);
            dao.awaitCompactions();
            // What the log held became a table at the open: a flush, which waits at level 0 for the trigger.
            assertTrue(levelZeroTables(dao) <= 1, "every table in a level: " + Arrays.toString(dao.liveLevels()));
            Manifest manifest = Manifest.read(Storage.local(), dir);
            for (int i = 0; i < manifest.tables.length; i++) {
                assertFalse(manifest.inherited[i], "table " + manifest.tables[i] + " still inherited");
            }
            assertHoldsVisibleV1Contents(dao);
        }
        try (LsmDao dao = LsmDao.open(leveled)) {
            assertHoldsVisibleV1Contents(dao);
        }
    }

    /** The fixture's values are all there; its deleted keys read as tombstones or not at all. */
    private static void assertHoldsVisibleV1Contents(LsmDao dao) throws IOException {
        List<Entry> values = new ArrayList<>();
        for (Map.Entry<String, Entry> e : V1StoreTest.expectedV1Contents().entrySet()) {
            Entry got = dao.get(e.getKey().getBytes(StandardCharsets.UTF_8));
            if (e.getValue().isTombstone()) {
                assertTrue(got == null || got.equals(e.getValue()), e.getKey() + ": " + got);
            } else {
                assertEquals(e.getValue(), got, e.getKey());
                values.add(got);
            }
        }
        List<Entry> read = new ArrayList<>();
        try (CloseableIterator<Entry> it = dao.range(null, null)) {
            while (it.hasNext()) {
                Entry e = it.next();
                if (!e.isTombstone()) {
                    read.add(e);
                }
            }
        }
        assertEquals(values, read);
    }

    /** {@code count} random puts and deletes over {@link #KEYS} keys, recorded in {@code model}. */
    private static void writeRandomly(LsmDao dao, Random random, TreeMap<Integer, Entry> model, long[] timestamp,
                                      int count) throws IOException {
        for (int n = 0; n < count; n++) {
            int k = random.nextInt(KEYS);
            Entry entry;
            if (random.nextInt(8) == 0) {
                entry = Entry.tombstone(key(k), ++timestamp[0]);
            } else {
                byte[] value = new byte[20 + random.nextInt(100)];
                random.nextBytes(value);
                entry = Entry.value(key(k), value, ++timestamp[0]);
            }
            dao.upsert(entry);
            model.put(k, entry);
        }
    }

    private static void checkContents(LsmDao dao, TreeMap<Integer, Entry> model) throws IOException {
        List<Entry> expected = new ArrayList<>();
        for (Map.Entry<Integer, Entry> e : model.entrySet()) {
            Entry got = dao.get(key(e.getKey()));
            if (e.getValue().isTombstone()) {
                assertTrue(got == null || got.isTombstone(), "deleted key " + e.getKey() + ": " + got);
            } else {
                assertArrayEquals(e.getValue().value(), got.value(), "key " + e.getKey());
                assertEquals(e.getValue().timestamp(), got.timestamp(), "key " + e.getKey());
                expected.add(e.getValue());
            }
        }
        assertNull(dao.get(key(KEYS)));
        List<Entry> read = new ArrayList<>();
        try (CloseableIterator<Entry> it = dao.range(null, null)) {
            while (it.hasNext()) {
                Entry e = it.next();
                if (!e.isTombstone()) {
                    read.add(e);
                }
            }
        }
        assertEquals(expected, read);
    }

    /** No table file but the live ones: a compaction that was not installed left nothing behind. */
    private void assertOnlyLiveTablesOnDisk(LsmDao dao) throws IOException {
        List<String> live = new ArrayList<>();
        for (SsTable table : dao.liveTables()) {
            live.add(FileNames.table(dir, table.fileNumber()).getFileName().toString());
        }
        List<String> onDisk = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.map(f -> f.getFileName().toString()).filter(name -> name.endsWith(".sst")).forEach(onDisk::add);
        }
        live.sort(null);
        onDisk.sort(null);
        assertEquals(live, onDisk);
    }

    /** Within each level of 1 or deeper, tables are in key order and do not overlap. */
    private static void assertLevelsDoNotOverlap(LsmDao dao) {
        SsTable[] tables = dao.liveTables();
        int[] levels = dao.liveLevels();
        for (int i = 1; i < tables.length; i++) {
            if (levels[i] == levels[i - 1] && levels[i] > 0) {
                assertTrue(Arrays.compareUnsigned(tables[i - 1].lastKey(), tables[i].firstKey()) < 0,
                        "overlap at level " + levels[i] + ": " + tables[i - 1] + " and " + tables[i]);
            }
        }
    }

    private static int levelZeroTables(LsmDao dao) {
        int count = 0;
        for (int level : dao.liveLevels()) {
            if (level == 0) {
                count++;
            }
        }
        return count;
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }
}
