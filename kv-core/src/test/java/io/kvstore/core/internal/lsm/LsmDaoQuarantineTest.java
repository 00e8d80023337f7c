package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskFailurePolicy;
import io.kvstore.core.Entry;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.UnavailableIntervalException;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Op;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A damaged table is quarantined: taken out of the live set, its file moved aside, its key interval
 * refused (also across a reopen) while every other key is served, until the interval is healed. The
 * damage is a bit flipped in each kind of block.
 *
 * <p>Every store here holds three tables at level 0, compactions off: {@code old} (keys {@code a-*} and
 * {@code m-*} at version 1), {@code mid} (keys {@code m-*} at version 2, the table damaged) and
 * {@code new} (keys {@code z-*}). Refusing {@code m-*} matters: beneath the damaged table lie the
 * stale versions of {@code old}.
 */
class LsmDaoQuarantineTest {
    static final int KEYS = 100;

    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    /** Where in a table a bit is flipped. */
    enum Block {
        DATA, INDEX, FILTER, FOOTER
    }

    DaoOptions.Builder options() {
        return DaoOptions.builder(dir).storage(storage).syncPolicy(SyncPolicy.NONE).flushThresholdBytes(1 << 20)
                .blockSizeBytes(1024).compactionTrigger(100).idleCompactionDelay(Duration.ZERO);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String key(String prefix, int i) {
        return String.format("%s-%03d", prefix, i);
    }

    static String value(String key, int version) {
        return "v" + version + " of " + key + " ".repeat(60);
    }

    /** Writes the three tables of the class comment and returns the file name of {@code mid}. */
    String writeThreeTables(DaoOptions options) throws IOException {
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < KEYS; i++) {
                dao.upsert(Entry.value(b(key("a", i)), b(value(key("a", i), 1)), 1));
                dao.upsert(Entry.value(b(key("m", i)), b(value(key("m", i), 1)), 1));
            }
            dao.flush();
            for (int i = 0; i < KEYS; i++) {
                dao.upsert(Entry.value(b(key("m", i)), b(value(key("m", i), 2)), 2));
            }
            dao.flush();
            for (int i = 0; i < KEYS; i++) {
                dao.upsert(Entry.value(b(key("z", i)), b(value(key("z", i), 1)), 1));
            }
            dao.flush();
            SsTable[] tables = dao.liveTables();
            assertEquals(3, tables.length, Arrays.toString(tables));
            return tables[1].path().getFileName().toString();
        }
    }

    /** The footer of table file {@code name}: its 56 bytes and their offset. */
    long[] footer(String name) throws IOException {
        byte[] all = Files.readAllBytes(dir.resolve(name));
        int at = all.length - 56;
        byte[] f = Arrays.copyOfRange(all, at, all.length);
        // meta offset, index offset, index size, bloom offset, bloom size, footer offset
        return new long[] {Coding.getLong(f, 0), Coding.getLong(f, 12), Coding.getInt(f, 20), Coding.getLong(f, 24),
                Coding.getInt(f, 32), at};
    }

    /** Flips a bit of table {@code name}'s {@code block}, as read from now on. */
    void flip(String name, Block block, Random random) throws IOException {
        long[] f = footer(name);
        long offset = switch (block) {
            case DATA -> random.nextInt(64); // the first data block, which holds m-000
            case INDEX -> f[1] + random.nextInt((int) f[2]);
            case FILTER -> f[3] + random.nextInt((int) f[4]);
            case FOOTER -> f[5] + 40; // the version field: the footer's checksum fails, its layout is in doubt
        };
        storage.flipBit(Pattern.quote(name), offset, block == Block.FOOTER ? 1 : random.nextInt(8));
    }

    static void assertServed(LsmDao dao, String prefix, int version) throws IOException {
        for (int i = 0; i < KEYS; i += 7) {
            String key = key(prefix, i);
            Entry found = dao.get(b(key));
            assertArrayEquals(b(value(key, version)), found == null ? null : found.value(), key);
        }
    }

    static List<String> keys(CloseableIterator<Entry> range) {
        List<String> keys = new ArrayList<>();
        try (range) {
            range.forEachRemaining(e -> keys.add(new String(e.key(), StandardCharsets.UTF_8)));
        }
        return keys;
    }

    /** Asserts that {@code m-*} is refused, naming {@code name}, and that everything else is served. */
    void assertOnlyMidRefused(LsmDao dao, String name) throws IOException {
        for (int k = 0; k < KEYS; k += 7) {
            int i = k;
            UnavailableIntervalException e = assertThrows(UnavailableIntervalException.class,
                    () -> dao.get(b(key("m", i))));
            assertTrue(e.getMessage().contains(name), e.getMessage());
            assertEquals(dir.resolve(Quarantine.DIRECTORY).resolve(name), e.file());
            assertArrayEquals(b("m-000"), e.interval().from());
            assertArrayEquals(b("m-099\0"), e.interval().to());
        }
        assertServed(dao, "a", 1);
        assertServed(dao, "z", 1);
        assertEquals(KEYS, keys(dao.range(b("a-"), b("a-~"))).size());
        assertEquals(KEYS, keys(dao.range(b("n"), null)).size());
        assertEquals(KEYS, keys(dao.scan(b("m-099\0"), null)).size(), "the interval's end is exclusive");
        assertThrows(UnavailableIntervalException.class, () -> dao.range(b("a-050"), b("z-050")));
        assertThrows(UnavailableIntervalException.class, () -> dao.scan(null, null));
        assertThrows(UnavailableIntervalException.class, () -> dao.range(b("m-099"), b("n")));
        List<QuarantinedInterval> quarantined = dao.health().quarantined();
        assertEquals(1, quarantined.size(), quarantined.toString());
        assertEquals(dir.resolve(Quarantine.DIRECTORY).resolve(name), quarantined.get(0).file());
        assertTrue(Files.exists(dir.resolve(Quarantine.DIRECTORY).resolve(name)), "moved aside");
        assertFalse(Files.exists(dir.resolve(name)), "not in the store's directory");
        for (SsTable live : dao.liveTables()) {
            assertFalse(live.path().getFileName().toString().equals(name), "not live: " + live);
        }
        assertFalse(dao.health().stopped());
    }

    @ParameterizedTest
    @EnumSource(Block.class)
    void aBitFlippedInABlockQuarantinesTheTableAndRefusesOnlyItsInterval(Block block) throws IOException {
        Random random = new Random(Seeds.seed("LsmDaoQuarantineTest." + block));
        DaoOptions options = options().build();
        String mid = writeThreeTables(options);
        flip(mid, block, random);
        try (LsmDao dao = LsmDao.open(options)) {
            if (block == Block.DATA) {
                assertEquals(3, dao.liveTables().length, "data blocks are checked when read, not at open");
                assertServed(dao, "a", 1);
                UnavailableIntervalException e = assertThrows(UnavailableIntervalException.class,
                        () -> dao.get(b("m-000")));
                assertInstanceOf(CorruptionException.class, e.getCause(), "caused by the damage found");
                assertTrue(e.getCause().getMessage().contains("checksum mismatch"), e.getCause().getMessage());
            } else {
                assertEquals(2, dao.liveTables().length, "quarantined at open");
                assertTrue(dao.health().quarantined().get(0).reason().contains(mid));
            }
            assertOnlyMidRefused(dao, mid);
            dao.upsert(Entry.value(b("m-000"), b("written after"), 3));
            assertThrows(UnavailableIntervalException.class, () -> dao.get(b("m-000")),
                    "a key written since is refused too until the interval is healed");
            dao.flush();
        }
        try (LsmDao dao = LsmDao.open(options)) {
            assertOnlyMidRefused(dao, mid);
            assertEquals(0, dao.healInterval(b("m-000"), b("m-099")), "the interval is not wholly within");
            assertEquals(1, dao.healInterval(b("m"), b("n")));
            assertTrue(dao.health().quarantined().isEmpty());
            assertArrayEquals(b("written after"), dao.get(b("m-000")).value());
            // What a single node holds beneath the damaged table: the stale version 1 (a cluster refetches it first).
            assertArrayEquals(b(value("m-001", 1)), dao.get(b("m-001")).value());
            assertEquals(3 * KEYS, keys(dao.range(null, null)).size());
        }
        try (LsmDao dao = LsmDao.open(options)) {
            assertTrue(dao.health().quarantined().isEmpty(), "healing outlives a restart");
            assertArrayEquals(b("written after"), dao.get(b("m-000")).value());
        }
    }

    @Test
    void aRangeThatMeetsTheDamageFirstIsRefusedAndQuarantinesTheTable() throws IOException {
        DaoOptions options = options().build();
        String mid = writeThreeTables(options);
        flip(mid, Block.DATA, new Random(Seeds.seed("LsmDaoQuarantineTest.range")));
        try (LsmDao dao = LsmDao.open(options)) {
            UnavailableIntervalException e = assertThrows(UnavailableIntervalException.class,
                    () -> keys(dao.range(b("m-000"), b("m-050"))));
            assertTrue(e.getMessage().contains(mid), e.getMessage());
            assertOnlyMidRefused(dao, mid);
        }
    }

    @Test
    void aRangeOpenedBeforeTheDamageWasFoundFailsAsItReachesIt() throws IOException {
        DaoOptions options = options().compression(io.kvstore.core.Compression.NONE).build();
        String mid = writeThreeTables(options);
        long[] f = footer(mid);
        // A bit in the last data block (before the padding and the filter), which a range from the start of the
        // table reaches last.
        storage.flipBit(Pattern.quote(mid), f[3] - 100, 3);
        try (LsmDao dao = LsmDao.open(options)) {
            CloseableIterator<Entry> range = dao.range(b("m-"), b("n"));
            List<String> seen = new ArrayList<>();
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
                while (range.hasNext()) {
                    seen.add(new String(range.next().key(), StandardCharsets.UTF_8));
                }
            });
            range.close();
            assertInstanceOf(UnavailableIntervalException.class, e.getCause());
            assertTrue(seen.size() > 0 && seen.size() < KEYS, "failed on the way: " + seen.size());
            assertOnlyMidRefused(dao, mid);
        }
    }

    @Test
    void aCompactionThatMeetsTheDamageQuarantinesTheTableAndTheNextOneSucceeds() throws IOException {
        DaoOptions options = options().build();
        String mid = writeThreeTables(options);
        flip(mid, Block.DATA, new Random(Seeds.seed("LsmDaoQuarantineTest.compaction")));
        try (LsmDao dao = LsmDao.open(options)) {
            assertThrows(UnavailableIntervalException.class, dao::compact);
            dao.compact();
            assertEquals(1, dao.liveTables().length);
            assertOnlyMidRefusedButLiveTables(dao, mid);
        }
    }

    /** {@link #assertOnlyMidRefused} for a store that compacted what was left. */
    void assertOnlyMidRefusedButLiveTables(LsmDao dao, String mid) throws IOException {
        assertThrows(UnavailableIntervalException.class, () -> dao.get(b("m-042")));
        assertServed(dao, "a", 1);
        assertServed(dao, "z", 1);
        assertEquals(1, dao.health().quarantined().size());
        assertTrue(Files.exists(dir.resolve(Quarantine.DIRECTORY).resolve(mid)));
    }

    @Test
    void aQuarantineWhoseManifestWriteFailsStillRefusesTheIntervalAndTheReopenCompletesIt() throws IOException {
        DaoOptions options = options().build();
        String mid = writeThreeTables(options);
        flip(mid, Block.DATA, new Random(Seeds.seed("LsmDaoQuarantineTest.manifest")));
        try (LsmDao dao = LsmDao.open(options)) {
            FaultyStorage.Fault rename = storage.failNth(Op.RENAME, FileNames.MANIFEST, 1);
            CorruptionException e = assertThrows(CorruptionException.class, () -> dao.get(b("m-000")));
            assertEquals(1, rename.fired());
            assertEquals(dir.resolve(mid), e.file(), "the damage itself: the table could not be taken out");
            assertEquals(3, dao.liveTables().length);
            assertThrows(UnavailableIntervalException.class, () -> dao.get(b("m-001")), "recorded first");
            assertServed(dao, "a", 1);
        }
        try (LsmDao dao = LsmDao.open(options)) {
            assertOnlyMidRefused(dao, mid);
        }
    }

    @Test
    void aQuarantinedTableThatCannotBeMovedAsideIsMovedByTheNextOpenNotDeleted() throws IOException {
        DaoOptions options = options().build();
        String mid = writeThreeTables(options);
        flip(mid, Block.DATA, new Random(Seeds.seed("LsmDaoQuarantineTest.move")));
        try (LsmDao dao = LsmDao.open(options)) {
            FaultyStorage.Fault rename = storage.failNth(Op.RENAME, Pattern.quote(mid), 1);
            assertThrows(UnavailableIntervalException.class, () -> dao.get(b("m-000")));
            assertEquals(1, rename.fired());
            assertTrue(Files.exists(dir.resolve(mid)), "still in the store's directory");
            assertEquals(2, dao.liveTables().length, "but out of the live set");
            assertServed(dao, "a", 1);
        }
        try (LsmDao dao = LsmDao.open(options)) {
            assertOnlyMidRefused(dao, mid); // moved aside by the open, not deleted as a table the manifest lacks
        }
    }

    @Test
    void aDamagedTableWhoseKeyRangeIsLostRefusesEveryKeyAtLevelZero() throws IOException {
        DaoOptions options = options().build();
        String mid = writeThreeTables(options);
        long[] f = footer(mid);
        storage.flipBit(Pattern.quote(mid), f[5] + 44, 0); // the footer's checksum
        storage.flipBit(Pattern.quote(mid), f[0] + 2, 0); // and the meta block: its keys cannot be trusted
        try (LsmDao dao = LsmDao.open(options)) {
            QuarantinedInterval interval = dao.health().quarantined().get(0);
            assertNull(interval.from());
            assertNull(interval.to());
            assertThrows(UnavailableIntervalException.class, () -> dao.get(b("a-001")));
            assertEquals(1, dao.healInterval(null, null));
            assertServed(dao, "a", 1);
        }
    }

    @Test
    void underTheStopPolicyTheFirstDamageStopsEveryReadAndWrite() throws IOException {
        DaoOptions options = options().diskFailurePolicy(DiskFailurePolicy.STOP).build();
        String mid = writeThreeTables(options);
        flip(mid, Block.DATA, new Random(Seeds.seed("LsmDaoQuarantineTest.stop")));
        try (LsmDao dao = LsmDao.open(options)) {
            assertServed(dao, "a", 1);
            assertThrows(UnavailableIntervalException.class, () -> dao.get(b("m-000")));
            assertTrue(dao.health().stopped());
            assertTrue(dao.health().stoppedBy().contains(mid), dao.health().stoppedBy());
            IOException read = assertThrows(IOException.class, () -> dao.get(b("a-001")));
            assertTrue(read.getMessage().contains("stopped serving"), read.getMessage());
            assertThrows(IOException.class, () -> dao.range(b("z"), null));
            assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("a-001"), b("x"), 9)));
            assertTrue(dao.getAsync(b("a-001"), Runnable::run).isCompletedExceptionally());
        }
        try (LsmDao dao = LsmDao.open(options)) {
            assertFalse(dao.health().stopped(), "a reopened store serves again");
            assertOnlyMidRefused(dao, mid);
        }
    }

    @Test
    void underTheStopPolicyAFailedLogFsyncStopsReadsToo() throws IOException {
        DaoOptions options = options().diskFailurePolicy(DiskFailurePolicy.STOP).syncPolicy(SyncPolicy.EVERY_WRITE)
                .build();
        try (LsmDao dao = LsmDao.open(options)) {
            dao.upsert(Entry.value(b("k"), b("v"), 1));
            storage.failNth(Op.FSYNC, ".*\\.wal", 1);
            assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("k2"), b("v"), 1)));
            IOException read = assertThrows(IOException.class, () -> dao.get(b("k")));
            assertTrue(read.getMessage().contains("stopped serving"), read.getMessage());
            assertTrue(dao.health().stopped());
        } catch (IOException closing) {
            // the close reports the failed log as well
        }
    }

    @Test
    void underKeepServingAFailedLogFsyncStopsWritesOnly() throws IOException {
        DaoOptions options = options().syncPolicy(SyncPolicy.EVERY_WRITE).build();
        LsmDao dao = LsmDao.open(options);
        try {
            dao.upsert(Entry.value(b("k"), b("v"), 1));
            storage.failNth(Op.FSYNC, ".*\\.wal", 1);
            assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("k2"), b("v"), 1)));
            assertArrayEquals(b("v"), dao.get(b("k")).value());
            assertFalse(dao.health().stopped());
        } finally {
            LsmDaoDiskFaultTest.closeQuietly(dao);
        }
    }
}
