package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Fault;
import io.kvstore.core.testing.FaultyStorage.Op;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store on a disk that fails: a failed fsync of the log, a manifest that cannot be renamed into
 * place, a power cut after a failure, a bit flipped in a table. See also {@link LsmDaoPowerCutTest}.
 */
class LsmDaoDiskFaultTest {
    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    DaoOptions options(SyncPolicy policy) {
        return DaoOptions.builder(dir).storage(storage).syncPolicy(policy).flushThresholdBytes(8 << 10)
                .blockSizeBytes(1024).compactionTrigger(3).build();
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@code count} keys, each acknowledged, and returns them with their values. */
    static Map<String, String> writeAcknowledged(LsmDao dao, String prefix, int count) throws IOException {
        Map<String, String> acknowledged = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String key = prefix + "-" + i;
            String value = "value of " + key + " ".repeat(100);
            dao.upsert(Entry.value(b(key), b(value), i + 1));
            acknowledged.put(key, value);
        }
        return acknowledged;
    }

    static void assertAllPresent(LsmDao dao, Map<String, String> acknowledged) throws IOException {
        for (Map.Entry<String, String> write : acknowledged.entrySet()) {
            Entry found = dao.get(b(write.getKey()));
            assertNotNull(found, "acknowledged write of " + write.getKey() + " lost");
            assertArrayEquals(b(write.getValue()), found.value(), write.getKey());
        }
    }

    /** Closes a store whose disk failed or lost power: what the close reports is not under test. */
    static void closeQuietly(LsmDao dao) {
        try {
            dao.close();
        } catch (IOException | RuntimeException expected) {
            // the disk is failing or off
        }
    }

    @ParameterizedTest
    @EnumSource(value = SyncPolicy.class, names = {"EVERY_WRITE", "GROUP_COMMIT"})
    void aFailedFsyncOfTheLogIsNeverAcknowledged(SyncPolicy policy) throws IOException {
        LsmDao dao = LsmDao.open(options(policy));
        Map<String, String> acknowledged;
        try {
            acknowledged = writeAcknowledged(dao, "before", 100);
            Fault fsync = storage.failNth(Op.FSYNC, ".*\\.wal", 1);
            assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("unacknowledged"), b("v"), 1)));
            assertEquals(1, fsync.fired());
            assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("after"), b("v"), 1)),
                    "nor is any write after it: the failed fsync may have dropped pages it cleared");
            storage.powerCut();
        } finally {
            closeQuietly(dao);
        }
        storage.powerOn();
        try (LsmDao reopened = LsmDao.open(options(policy))) {
            assertAllPresent(reopened, acknowledged);
        }
    }

    @ParameterizedTest
    @EnumSource(value = SyncPolicy.class, names = {"NONE", "EVERY_WRITE"})
    void aFailedManifestRenameLeavesTheStoreReopenableWithEveryAcknowledgedWrite(SyncPolicy policy)
            throws IOException {
        LsmDao dao = LsmDao.open(options(policy));
        Map<String, String> acknowledged;
        try {
            acknowledged = writeAcknowledged(dao, "k", 300);
            // Every rename of the manifest fails: a compaction in the background may meet it first.
            Fault rename = storage.failFrom(Op.RENAME, FileNames.MANIFEST, 1);
            assertThrows(IOException.class, dao::flush);
            assertTrue(rename.fired() > 0);
            assertTrue(Files.exists(dir.resolve(FileNames.MANIFEST)));
            if (policy != SyncPolicy.NONE) {
                storage.powerCut(); // what the policy promises must outlast the machine, too
            }
        } finally {
            closeQuietly(dao);
        }
        storage.repair();
        storage.powerOn();
        try (LsmDao reopened = LsmDao.open(options(policy))) {
            assertAllPresent(reopened, acknowledged);
            reopened.upsert(Entry.value(b("k-0"), b("rewritten"), 1_000));
            reopened.flush();
        }
        try (LsmDao again = LsmDao.open(options(policy))) {
            assertArrayEquals(b("rewritten"), again.get(b("k-0")).value(), "the reopened store writes manifests again");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4"})
    void aBitFlippedInATableBlockIsReportedAsCorruptionNamingTheFile(Compression compression) throws IOException {
        Random random = new Random(Seeds.seed("LsmDaoDiskFaultTest.bitFlip." + compression));
        DaoOptions options = options(SyncPolicy.NONE).toBuilder().compression(compression)
                .flushThresholdBytes(1 << 20).blockSizeBytes(4096).build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < 500; i++) {
                byte[] value = new byte[100];
                random.nextBytes(value);
                dao.upsert(Entry.value(b(String.format("key-%04d", i)), value, 1));
            }
            dao.flush();
        }
        List<Path> tables;
        try (Stream<Path> files = Files.list(dir)) {
            tables = files.filter(file -> file.toString().endsWith(FileNames.TABLE_SUFFIX)).toList();
        }
        assertEquals(1, tables.size(), "one table: " + tables);
        String name = tables.get(0).getFileName().toString();
        // In the first data block, which holds the smallest keys: the table still opens, its reads fail.
        storage.flipBit(Pattern.quote(name), random.nextInt(64), random.nextInt(8));
        try (LsmDao dao = LsmDao.open(options)) {
            for (int attempt = 0; attempt < 2; attempt++) {
                CorruptionException e = assertThrows(CorruptionException.class, () -> dao.get(b("key-0000")));
                assertEquals(name, e.file().getFileName().toString(), e.getMessage());
                assertTrue(e.getMessage().contains(name), e.getMessage());
            }
        }
    }
}
