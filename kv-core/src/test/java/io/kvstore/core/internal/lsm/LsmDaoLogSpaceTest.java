package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskSpace;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Fault;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.assertAllPresent;
import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.b;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The log on a disk that fills past the floor: the write that finds no room for the log (a mapped
 * window's reservation, or a record's write(2)) is refused as a full disk, nothing stops, and writes
 * go on by themselves once space returns, with every acknowledged write kept.
 */
class LsmDaoLogSpaceTest {
    /** Writes a full disk may take before the log has to grow: the two windows reserved ahead, and some. */
    private static final int MOST_WRITES_BEFORE_REFUSAL = 4 * (1 << 20) / 1024;

    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    DaoOptions options(SyncPolicy policy) {
        // No floor, and memtables large enough that the log is what meets the full disk.
        return DaoOptions.builder(dir).storage(storage).syncPolicy(policy).minFreeBytes(0)
                .flushThresholdBytes(64 << 20).build();
    }

    private static Entry entry(String key, long timestamp) {
        return Entry.value(b(key), b(key + " ".repeat(1000)), timestamp);
    }

    @ParameterizedTest
    @EnumSource(value = SyncPolicy.class, names = {"NONE", "EVERY_WRITE"})
    void aFullDiskRefusesTheWriteTheLogHasNoRoomForAndWritesResumeWithSpace(SyncPolicy policy) throws IOException {
        Map<String, String> acknowledged = new LinkedHashMap<>();
        try (LsmDao dao = LsmDao.open(options(policy))) {
            acknowledged.putAll(LsmDaoDiskFaultTest.writeAcknowledged(dao, "before", 50));
            Fault full = storage.noSpace(".*\\.wal", 1);
            InsufficientStorageException refused = null;
            for (int i = 0; refused == null; i++) {
                assertTrue(i < MOST_WRITES_BEFORE_REFUSAL, "the log took " + i + " writes on a full disk");
                String key = "filling-" + i;
                try {
                    dao.upsert(entry(key, 1));
                    acknowledged.put(key, key + " ".repeat(1000));
                } catch (InsufficientStorageException e) {
                    refused = e;
                }
            }
            assertTrue(full.fired() > 0);
            // Mapped: the reservation of the next window found the disk full, before anything was mapped.
            String where = policy == SyncPolicy.NONE ? "window" : "a record";
            assertTrue(refused.getMessage().contains("no room for") && refused.getMessage().contains(where),
                    refused.getMessage());
            DiskSpace space = dao.diskSpace();
            assertTrue(space.refusesWrites(), space.toString());
            assertTrue(space.refusal().contains("no room for"), space.refusal());
            assertThrows(InsufficientStorageException.class, () -> dao.upsert(entry("refused", 2)),
                    "refused again while the disk is full");
            assertAllPresent(dao, acknowledged);

            storage.repair();
            dao.upsert(entry("after", 3));
            acknowledged.put("after", "after" + " ".repeat(1000));
            assertFalse(dao.diskSpace().refusesWrites(), "a write got through: the refusal is over");
            assertAllPresent(dao, acknowledged);
        }
        try (LsmDao reopened = LsmDao.open(options(policy))) {
            assertAllPresent(reopened, acknowledged);
            assertNull(reopened.get(b("refused")));
        }
    }
}
