package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskSpace;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Fault;
import io.kvstore.core.testing.FaultyStorage.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.SyncFailedException;
import java.nio.file.Path;
import java.util.Map;

import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.assertAllPresent;
import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.b;
import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.closeQuietly;
import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.writeAcknowledged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failed fsync, a full disk's included, stops writes until the store is reopened, naming the file;
 * it is never tried again as if the data were safe, reads go on, and the reopened store has every
 * acknowledged write.
 */
class LsmDaoWritesStoppedTest {
    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    DaoOptions options(SyncPolicy policy) {
        return DaoOptions.builder(dir).storage(storage).syncPolicy(policy).compactionStyle(CompactionStyle.SIZE_TIERED)
                .flushThresholdBytes(1 << 20).blockSizeBytes(1024).compactionTrigger(100).minFreeBytes(0).build();
    }

    /** Asserts that writes are stopped for a failure naming a file that matches {@code file}, not refused for space. */
    static void assertStopped(LsmDao dao, String file) {
        DiskSpace space = dao.diskSpace();
        assertTrue(space.stopsWrites(), space.toString());
        assertTrue(space.writesStopped().matches("(?s).*" + file + ".*"), space.writesStopped());
        IOException refused = assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("refused"), b("v"), 1)));
        assertFalse(refused instanceof InsufficientStorageException, "a stop is not a full disk: " + refused);
        assertTrue(refused.getMessage().contains("stopped taking writes") && refused.getMessage().matches("(?s).*" + file + ".*"),
                refused.getMessage());
    }

    @Test
    void anFsyncOfTheLogThatFindsTheDiskFullStopsWritesAndIsNeverTriedAgain() throws IOException {
        Map<String, String> acknowledged;
        LsmDao dao = LsmDao.open(options(SyncPolicy.EVERY_WRITE));
        try {
            acknowledged = writeAcknowledged(dao, "before", 50);
            Fault fsync = storage.failNth(Op.FSYNC, ".*\\.wal", 1, FaultyStorage.NO_SPACE);
            IOException failed = assertThrows(IOException.class, () -> dao.upsert(Entry.value(b("failed"), b("v"), 1)));
            assertFalse(failed instanceof InsufficientStorageException, "an fsync's ENOSPC is not a full disk: " + failed);
            assertEquals(1, fsync.fired());
            assertStopped(dao, "\\d+\\.wal");
            storage.repair();
            assertStopped(dao, "\\d+\\.wal"); // the disk works again, but what the failed fsync dropped is unknown
            assertAllPresent(dao, acknowledged);
            storage.powerCut();
        } finally {
            closeQuietly(dao);
        }
        storage.powerOn();
        try (LsmDao reopened = LsmDao.open(options(SyncPolicy.EVERY_WRITE))) {
            assertAllPresent(reopened, acknowledged);
            assertFalse(reopened.diskSpace().stopsWrites());
            reopened.upsert(Entry.value(b("after"), b("v"), 1));
        }
    }

    @Test
    void aCompactionWhoseOutputFailsToSyncStopsWritesAndKeepsItsInputs() throws IOException {
        Map<String, String> acknowledged;
        try (LsmDao dao = LsmDao.open(options(SyncPolicy.NONE))) {
            acknowledged = writeAcknowledged(dao, "first", 50);
            dao.flush();
            acknowledged.putAll(writeAcknowledged(dao, "second", 50));
            dao.flush();
            storage.failNth(Op.FSYNC, ".*\\.sst", 1);
            IOException failed = assertThrows(IOException.class, () -> dao.compactOldest(2));
            assertInstanceOf(SyncFailedException.class, rootFsync(failed), failed.toString());
            assertStopped(dao, "\\d+\\.sst");
            assertEquals(2, dao.liveTables().length, "the inputs stay");
            assertAllPresent(dao, acknowledged);
        }
        try (LsmDao reopened = LsmDao.open(options(SyncPolicy.NONE))) {
            assertAllPresent(reopened, acknowledged);
            reopened.upsert(Entry.value(b("after"), b("v"), 1));
            assertNull(reopened.get(b("refused")));
        }
    }

    private static Throwable rootFsync(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SyncFailedException) {
                return t;
            }
        }
        return failure;
    }
}
