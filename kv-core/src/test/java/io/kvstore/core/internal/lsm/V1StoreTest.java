package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A store written in format v1 (test resource stores/v1, described in its README) opens with every write. */
class V1StoreTest {
    @TempDir
    Path dir;

    /** Copies the v1 fixture into {@code target}. */
    static void copyV1Store(Path target) throws IOException {
        Path source;
        try {
            source = Path.of(V1StoreTest.class.getResource("/stores/v1/MANIFEST").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        Files.createDirectories(target);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(source)) {
            for (Path file : files) {
                if (!file.getFileName().toString().endsWith(".md")) {
                    Files.copy(file, target.resolve(file.getFileName()));
                }
            }
        }
    }

    /** What the fixture holds, as visible versions by key (its README lists the writes). */
    static TreeMap<String, Entry> expectedV1Contents() {
        TreeMap<String, Entry> expected = new TreeMap<>();
        for (int i = 0; i < 200; i++) {
            put(expected, Entry.value(key(i), b("v1-" + i), 1000 + i));
        }
        for (int i = 0; i < 100; i += 2) {
            put(expected, Entry.value(key(i), b("v2-" + i), 2000 + i));
        }
        for (int i = 100; i < 110; i++) {
            put(expected, Entry.tombstone(key(i), 2000 + i));
        }
        put(expected, Entry.value(b("empty"), new byte[0], 2500));
        for (int i = 190; i < 200; i++) {
            put(expected, Entry.value(key(i), b("v3-" + i), 3000 + i));
        }
        put(expected, Entry.tombstone(key(0), 3500));
        for (int i = 200; i < 210; i++) {
            put(expected, Entry.value(key(i), b("v3-" + i), 3000 + i));
        }
        return expected;
    }

    /**
     * Checks that {@code dao} holds exactly {@link #expectedV1Contents()}, without its tombstones if
     * {@code compacted} (a full compaction drops them: the fixture's timestamps are long past any grace).
     */
    static void assertHoldsV1Contents(LsmDao dao, boolean compacted) throws IOException {
        TreeMap<String, Entry> expected = expectedV1Contents();
        if (compacted) {
            expected.values().removeIf(Entry::isTombstone);
        }
        for (String key : List.of("key000", "key105")) {
            assertEquals(!compacted, dao.get(b(key)) != null, key);
        }
        for (Map.Entry<String, Entry> e : expected.entrySet()) {
            assertEquals(e.getValue(), dao.get(b(e.getKey())), e.getKey());
        }
        List<Entry> all = new ArrayList<>();
        try (CloseableIterator<Entry> it = dao.range(null, null)) {
            while (it.hasNext()) {
                all.add(it.next());
            }
        }
        assertEquals(new ArrayList<>(expected.values()), all);
    }

    @Test
    void opensWithEveryWriteOfItsTablesAndLog() throws IOException {
        copyV1Store(dir);
        try (LsmDao dao = LsmDao.open(DaoOptions.defaults(dir))) {
            assertHoldsV1Contents(dao, false);
        }
    }

    @Test
    void keepsEveryWriteThroughCompactionAndReopen() throws IOException {
        copyV1Store(dir);
        // No compaction of its own before the explicit one: the first check must see the tables as found.
        DaoOptions noBackgroundCompaction = DaoOptions.builder(dir).compactionTrigger(1_000)
                .idleCompactionDelay(Duration.ofHours(1)).build();
        try (LsmDao dao = LsmDao.open(noBackgroundCompaction)) {
            // The log's entries may be flushed to a table of the current format meanwhile; the found table stays.
            assertTrue(Arrays.stream(dao.liveTables()).anyMatch(table -> table.formatVersion() == 1),
                    "the version-1 table is open as found");
            dao.compact();
            assertHoldsV1Contents(dao, true);
            assertEquals(1, dao.liveTables().length);
            assertEquals(3, dao.liveTables()[0].formatVersion(), "compaction writes the current format");
            assertEquals("lz4", dao.liveTables()[0].codecName());
        }
        try (LsmDao dao = LsmDao.open(DaoOptions.defaults(dir))) {
            assertHoldsV1Contents(dao, true);
        }
    }

    @Test
    void aTornTailOfItsLogIsCutAndEveryCompleteWriteKept() throws IOException {
        copyV1Store(dir);
        Path log = dir.resolve("000003.wal");
        byte[] bytes = Files.readAllBytes(log);
        // The last record is the stale write of key001, which changes nothing visible: cut into it.
        Files.write(log, Arrays.copyOf(bytes, bytes.length - 10));
        try (LsmDao dao = LsmDao.open(DaoOptions.defaults(dir))) {
            assertHoldsV1Contents(dao, false);
        }
    }

    @Test
    void aZeroFilledTailOfItsLogIsCut() throws IOException {
        copyV1Store(dir);
        Path log = dir.resolve("000003.wal");
        Files.write(log, new byte[4096], StandardOpenOption.APPEND);
        try (LsmDao dao = LsmDao.open(DaoOptions.defaults(dir))) {
            assertHoldsV1Contents(dao, false);
        }
    }

    @Test
    void aDamagedRecordBeforeValidOnesFailsTheOpenNamingTheLogAndLosesNothing() throws IOException {
        copyV1Store(dir);
        Path log = dir.resolve("000003.wal");
        byte[] bytes = Files.readAllBytes(log);
        bytes[8 + 20] ^= 0x01; // inside the first record's key, after the 8-byte file header
        Files.write(log, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> LsmDao.open(DaoOptions.defaults(dir)));
        assertEquals(log, e.file());
        assertEquals(8, e.offset());
        assertArrayEquals(bytes, Files.readAllBytes(log), "the log is left as it was");
        assertTrue(Files.exists(dir.resolve("000004.sst")) && Files.exists(dir.resolve("000006.sst")));
    }

    private static void put(Map<String, Entry> map, Entry entry) {
        map.put(new String(entry.key(), StandardCharsets.UTF_8), entry);
    }

    private static byte[] key(int i) {
        return b(String.format("key%03d", i));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
