package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LsmDaoPropertiesTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aNewStoreHoldsNothingAndHasDoneNothing() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).build())) {
            DaoProperties p = dao.properties();
            assertEquals(0, p.memtableBytes());
            assertEquals(0, p.tableCount());
            assertEquals(0, p.tableBytes());
            assertEquals(List.of(0), p.tablesPerLevel());
            assertEquals(0, p.flushes());
            assertEquals(0, p.compactions());
            assertEquals(0, p.walSyncs());
            assertEquals(0, p.bloomNegatives());
            assertEquals(0, p.writeStalls());
            assertEquals(0, p.backgroundErrors());
        }
    }

    @Test
    void writesFillTheMemtableAndAFlushMovesThemToATable() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).build())) {
            for (int i = 0; i < 100; i++) {
                dao.upsert(Entry.value(b("key" + i), new byte[100], i + 1));
            }
            assertTrue(dao.properties().memtableBytes() >= 100 * 100, "memtable holds the values");
            dao.flush();
            DaoProperties p = dao.properties();
            assertEquals(0, p.memtableBytes());
            assertEquals(1, p.tableCount());
            assertEquals(1, p.flushes());
            assertEquals(dao.liveTables()[0].fileSize(), p.tableBytes());
            assertEquals(p.tableBytes(), p.flushedBytes());
        }
    }

    @Test
    void aCompactionCountsTheBytesItWrote() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).compactionTrigger(100).build())) {
            for (int t = 0; t < 3; t++) {
                for (int i = 0; i < 50; i++) {
                    dao.upsert(Entry.value(b("key" + i), b("v" + t), t * 100 + i + 1));
                }
                dao.flush();
            }
            assertEquals(3, dao.properties().tableCount());
            assertEquals(150, dao.properties().tableEntries(), "three versions of each of 50 keys");
            dao.compact();
            DaoProperties p = dao.properties();
            assertEquals(1, p.tableCount());
            assertEquals(50, p.tableEntries(), "the newest version of each");
            assertEquals(1, p.compactions());
            assertEquals(p.tableBytes(), p.compactedBytes());
            assertEquals(0, p.compactionsPending());
        }
    }

    @Test
    void aFailedFlushIsCountedAsABackgroundError() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).build())) {
            dao.upsert(Entry.value(b("k"), b("v"), 1));
            assertEquals(0, dao.properties().backgroundErrors());
            // A directory where the manifest's temporary file goes: the flush cannot install its table.
            Files.createDirectory(dir.resolve(FileNames.MANIFEST_TMP));
            assertThrows(IOException.class, dao::flush);
            assertEquals(1, dao.properties().backgroundErrors());
            assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("k2"), b("v"), 2)), "writes refused");
        }
    }

    @Test
    void aBloomFilterThatRulesAKeyOutIsCountedOncePerTable() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).compactionTrigger(100).build())) {
            for (int t = 0; t < 2; t++) {
                dao.upsert(Entry.value(b("a"), b("v"), t * 10 + 1));
                dao.upsert(Entry.value(b("z"), b("v"), t * 10 + 2));
                dao.flush();
            }
            long before = dao.properties().bloomNegatives();
            for (int i = 0; i < 10; i++) {
                dao.get(b("m" + i)); // inside both tables' key range, in neither
            }
            // With 10 bits per key and two keys a table, a false positive is possible but not for these keys:
            // hashing is deterministic, so this count is too.
            assertEquals(20, dao.properties().bloomNegatives() - before);
            dao.get(b("0")); // outside every table's key range: no filter consulted
            assertEquals(20, dao.properties().bloomNegatives() - before);
        }
    }

    @Test
    void everyWriteSyncPolicyForcesTheLogOncePerWrite() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).syncPolicy(SyncPolicy.EVERY_WRITE).build())) {
            long before = dao.properties().walSyncs();
            for (int i = 0; i < 7; i++) {
                dao.upsert(Entry.value(b("k" + i), b("v"), i + 1));
            }
            assertEquals(7, dao.properties().walSyncs() - before);
        }
    }

    @Test
    void noSyncPolicyNeverForcesTheLog() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).syncPolicy(SyncPolicy.NONE).build())) {
            for (int i = 0; i < 7; i++) {
                dao.upsert(Entry.value(b("k" + i), b("v"), i + 1));
            }
            assertEquals(0, dao.properties().walSyncs());
        }
    }
}
