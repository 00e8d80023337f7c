package io.kvstore.core.internal.lsm;

import io.kvstore.core.Storage;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Leveled compaction keeps levels of non-overlapping, bounded tables and every write. */
class LeveledCompactionTest {
    private static final int KEYS = 4000;

    @TempDir
    Path dir;

    private DaoOptions options() {
        return DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED).compression(Compression.NONE)
                .flushThresholdBytes(32 << 10).targetTableBytes(16 << 10).levelBaseBytes(64 << 10)
                .compactionTrigger(4).tombstoneGrace(Duration.ZERO).build();
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** Within each level of 1 or deeper, tables are in key order and do not overlap. */
    static void assertLevelsDoNotOverlap(LsmDao dao) {
        SsTable[] tables = dao.liveTables();
        int[] levels = dao.liveLevels();
        for (int i = 1; i < tables.length; i++) {
            assertTrue(levels[i] >= levels[i - 1], "levels in order: " + Arrays.toString(levels));
            if (levels[i] == levels[i - 1] && levels[i] > 0) {
                assertTrue(Arrays.compareUnsigned(tables[i - 1].lastKey(), tables[i].firstKey()) < 0,
                        "overlap at level " + levels[i] + ": " + tables[i - 1] + " and " + tables[i]);
            }
        }
    }

    @Test
    void updatesFormLevelsOfBoundedNonOverlappingTablesAndLoseNothing() throws IOException {
        Random random = new Random(7);
        byte[][] expected = new byte[KEYS][];
        try (LsmDao dao = LsmDao.open(options())) {
            for (int round = 0; round < 5; round++) {
                for (int n = 0; n < KEYS; n++) {
                    int i = random.nextInt(KEYS);
                    byte[] value = new byte[20 + random.nextInt(40)];
                    random.nextBytes(value);
                    dao.upsert(Entry.value(key(i), value, round * KEYS + n + 1));
                    expected[i] = value;
                }
                dao.flush();
            }
            dao.awaitCompactions();
            int deepest = Arrays.stream(dao.liveLevels()).max().orElse(0);
            assertTrue(deepest >= 2, "levels formed: " + Arrays.toString(dao.liveLevels()));
            assertLevelsDoNotOverlap(dao);
            SsTable[] tables = dao.liveTables();
            int[] levels = dao.liveLevels();
            for (int i = 0; i < tables.length; i++) {
                if (levels[i] > 0) {
                    // Cut once the data blocks written reach the target: at most one more block (4 KiB),
                    // the index, the filter and the footer more.
                    assertTrue(tables[i].fileSize() < (16 << 10) + (6 << 10), "bounded table: " + tables[i] + " at level " + levels[i] + " of " + Arrays.toString(levels));
                }
            }
            checkContents(dao, expected);
            long last = 0;
            long above = 0;
            for (int i = 0; i < tables.length; i++) {
                if (levels[i] == LevelTargets.LAST_LEVEL) {
                    last += tables[i].fileSize();
                } else {
                    above += tables[i].fileSize();
                }
            }
            assertTrue(last > above, "the last level holds most of the data: " + last + " bytes, " + above + " above it");
        }
        try (LsmDao dao = LsmDao.open(options())) {
            assertLevelsDoNotOverlap(dao);
            checkContents(dao, expected);
        }
    }

    @Test
    void whileTheDataIsSmallLevelZeroCompactsStraightIntoTheLastLevel() throws IOException {
        try (LsmDao dao = LsmDao.open(options())) {
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 100; i++) {
                    dao.upsert(Entry.value(key(round * 100 + i), new byte[20], round * 100 + i + 1));
                }
                dao.flush();
            }
            dao.awaitCompactions();
            int[] levels = dao.liveLevels();
            assertTrue(levels.length > 0);
            for (int level : levels) {
                assertEquals(LevelTargets.LAST_LEVEL, level, "levels " + Arrays.toString(levels));
            }
            assertEquals(400, range(dao));
        }
    }

    @Test
    void onceWritesPauseLevelZeroOverATenthOfTheStoreMergesIntoTheBaseLevel() throws IOException {
        byte[][] expected = new byte[KEYS][];
        DaoOptions options = options().toBuilder().idleCompactionDelay(Duration.ofMillis(20)).build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < KEYS; i++) {
                expected[i] = new byte[] {(byte) i};
                dao.upsert(Entry.value(key(i), expected[i], i + 1));
            }
            dao.compact();
            for (int i = 0; i < KEYS; i += 4) {
                expected[i] = new byte[] {(byte) i, 2};
                dao.upsert(Entry.value(key(i), expected[i], KEYS + i + 1));
            }
            dao.flush();
            // A quarter of the keys, in one table: under the count trigger, over a tenth of the store.
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (Arrays.stream(dao.liveLevels()).anyMatch(level -> level == 0)) {
                assertTrue(System.nanoTime() < deadline, "level 0 merged once writes paused: "
                        + Arrays.toString(dao.liveLevels()));
                LockSupport.parkNanos(1_000_000);
            }
            assertLevelsDoNotOverlap(dao);
            checkContents(dao, expected);
        }
    }

    @Test
    void aReopenedStoreMergesTheLevelZeroTablesItFlushedInOneCompaction() throws IOException {
        int flushes = 6;
        // A trigger out of reach and no merge at rest, so the tables are still at level 0 at the close;
        // a base level larger than the store, so that one merge of level 0 is all there is to do.
        DaoOptions.Builder builder = options().toBuilder().levelBaseBytes(1 << 20).idleCompactionDelay(Duration.ofHours(1));
        Random random = new Random(11);
        byte[][] expected = new byte[KEYS][];
        try (LsmDao dao = LsmDao.open(builder.compactionTrigger(16).build())) {
            for (int t = 0; t < flushes; t++) {
                for (int n = 0; n < 300; n++) {
                    int i = random.nextInt(KEYS);
                    expected[i] = new byte[] {(byte) t, (byte) n};
                    dao.upsert(Entry.value(key(i), expected[i], t * 300L + n + 1));
                }
                dao.flush();
            }
            assertArrayEquals(new int[flushes], dao.liveLevels());
        }
        Manifest closed = Manifest.read(Storage.local(), dir);
        assertArrayEquals(new boolean[flushes], closed.inherited, "flushed under leveled compaction, not inherited");

        try (LsmDao dao = LsmDao.open(builder.compactionTrigger(4).build())) {
            dao.awaitCompactions();
            // Inherited tables would each have merged alone into the last level, rewriting it every time.
            assertEquals(1, dao.properties().compactions(), "level 0 merged once: " + Arrays.toString(dao.liveLevels()));
            assertTrue(Arrays.stream(dao.liveLevels()).allMatch(level -> level == LevelTargets.LAST_LEVEL),
                    Arrays.toString(dao.liveLevels()));
            checkContents(dao, expected);
        }
    }

    @Test
    void aFullCompactionDropsTombstonesAtTheBottomLevel() throws IOException {
        try (LsmDao dao = LsmDao.open(options())) {
            for (int i = 0; i < 1000; i++) {
                dao.upsert(Entry.value(key(i), new byte[50], i + 1));
            }
            dao.flush();
            for (int i = 0; i < 1000; i += 2) {
                dao.upsert(Entry.tombstone(key(i), 5000 + i));
            }
            dao.compact();
            for (int level : dao.liveLevels()) {
                assertEquals(LevelTargets.LAST_LEVEL, level, "all at the last level");
            }
            long entries = 0;
            for (SsTable table : dao.liveTables()) {
                entries += table.entryCount();
            }
            assertEquals(500, entries, "tombstones and what they shadowed are gone");
            assertNull(dao.get(key(0)));
            assertLevelsDoNotOverlap(dao);
        }
    }

    @Test
    void aV1StoreOpensUnderLeveledCompactionAndMovesIntoLevels() throws IOException {
        V1StoreTest.copyV1Store(dir);
        try (LsmDao dao = LsmDao.open(options())) {
            V1StoreTest.assertHoldsV1Contents(dao, false);
            dao.compact();
            for (int level : dao.liveLevels()) {
                assertEquals(LevelTargets.LAST_LEVEL, level);
            }
            V1StoreTest.assertHoldsV1Contents(dao, true);
        }
        try (LsmDao dao = LsmDao.open(options())) {
            V1StoreTest.assertHoldsV1Contents(dao, true);
        }
    }

    private static int range(LsmDao dao) throws IOException {
        int count = 0;
        try (CloseableIterator<Entry> it = dao.range(null, null)) {
            while (it.hasNext()) {
                it.next();
                count++;
            }
        }
        return count;
    }

    @Test
    void pointReadsFindEveryKeyInTheOneTableOfEachLevelThatSpansIt() throws IOException {
        try (LsmDao dao = LsmDao.open(options())) {
            // Even keys only, so that absent keys fall inside tables, between them and beyond both ends.
            for (int i = 0; i < KEYS; i += 2) {
                dao.upsert(Entry.value(key(i), pointReadValue(i), i + 1));
            }
            dao.compact();
            int[] levels = dao.liveLevels();
            int longestRun = 1;
            for (int i = 1, run = 1; i < levels.length; i++) {
                run = levels[i] > 0 && levels[i] == levels[i - 1] ? run + 1 : 1;
                longestRun = Math.max(longestRun, run);
            }
            assertTrue(longestRun >= 8, "a level of many tables: " + Arrays.toString(levels));
            for (int i = -1; i <= KEYS; i++) {
                Entry found = dao.get(key(i));
                if (i >= 0 && i < KEYS && i % 2 == 0) {
                    assertArrayEquals(pointReadValue(i), found.value(), "key " + i);
                } else {
                    assertNull(found, "key " + i);
                }
            }
            assertNull(dao.get(new byte[0]));
            assertNull(dao.get("zzz".getBytes(StandardCharsets.UTF_8)));
            // A newer version in the memtable wins over the one a level holds.
            dao.upsert(Entry.value(key(10), new byte[] {1}, KEYS + 1));
            assertArrayEquals(new byte[] {1}, dao.get(key(10)).value());
        }
    }

    /** 100 bytes that name their key, so that a few thousand entries fill many 16 KiB tables. */
    private static byte[] pointReadValue(int i) {
        return String.format("%-100s", "value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static void checkContents(LsmDao dao, byte[][] expected) throws IOException {
        for (int i = 0; i < KEYS; i++) {
            Entry e = dao.get(key(i));
            if (expected[i] == null) {
                assertNull(e);
            } else {
                assertArrayEquals(expected[i], e.value(), "key " + i);
            }
        }
        assertEquals(Arrays.stream(expected).filter(v -> v != null).count(), range(dao));
    }
}
