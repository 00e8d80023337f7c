package io.kvstore.core.internal.lsm;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskSpace;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.testing.FaultyStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ForkJoinPool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store on a disk filling up: writes refused below the floor, reads going on, writes back by themselves. */
class LsmDaoFreeSpaceTest {
    private static final long FLOOR = 10L << 20;

    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    private Dao open() throws IOException {
        return Engine.LSM.open(DaoOptions.builder(dir).storage(storage).minFreeBytes(FLOOR).build());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Waits out the floor's sampling period without a sleep per write: the next sample is due after it. */
    private static void afterASample() throws InterruptedException {
        Thread.sleep(FreeSpaceFloor.SAMPLE_MILLIS + 20);
    }

    @Test
    void belowTheFloorWritesAreRefusedReadsGoOnAndWritesResumeWhenSpaceReturns() throws Exception {
        try (Dao dao = open()) {
            dao.upsert(Entry.value(bytes("before"), bytes("1"), 10));
            assertFalse(dao.diskSpace().refusesWrites());
            assertTrue(dao.diskSpace().freeBytes() > 0);

            storage.reportFreeBytes(FLOOR - 1);
            afterASample();
            // Writes look at the disk every WRITES_PER_CHECK writes: within that many, they are refused.
            int taken = 0;
            while (true) {
                try {
                    dao.upsert(Entry.value(bytes("taken" + taken), bytes("t"), 15));
                    taken++;
                } catch (InsufficientStorageException e) {
                    break;
                }
                assertTrue(taken < FreeSpaceFloor.WRITES_PER_CHECK, "still taking writes after " + taken);
            }
            InsufficientStorageException refused = assertThrows(InsufficientStorageException.class,
                    () -> dao.upsert(Entry.value(bytes("during"), bytes("2"), 20)));
            assertTrue(refused.getMessage().contains((FLOOR - 1) + " bytes free") && refused.getMessage().contains(dir.toString()),
                    refused.getMessage());
            CompletionException async = assertThrows(CompletionException.class,
                    () -> dao.upsertAsync(Entry.tombstone(bytes("before"), 30), ForkJoinPool.commonPool()).join());
            assertInstanceOf(InsufficientStorageException.class, async.getCause());
            DiskSpace space = dao.diskSpace();
            assertEquals(FLOOR - 1, space.freeBytes());
            assertEquals(FLOOR, space.minFreeBytes());
            assertTrue(space.refusesWrites());
            assertArrayEquals(bytes("1"), dao.get(bytes("before")).value(), "reads go on, the refused delete stored nothing");
            assertNull(dao.get(bytes("during")));

            storage.reportFreeBytes(FLOOR);
            afterASample();
            dao.upsert(Entry.value(bytes("after"), bytes("3"), 40));
            assertFalse(dao.diskSpace().refusesWrites());
        }
        storage.repair();
        try (Dao reopened = open()) {
            assertArrayEquals(bytes("1"), reopened.get(bytes("before")).value());
            assertNull(reopened.get(bytes("during")));
            assertArrayEquals(bytes("3"), reopened.get(bytes("after")).value());
        }
    }

    @Test
    void aStatusReadSeesTheDiskBelowTheFloorWithoutAWrite() throws Exception {
        try (Dao dao = open()) {
            storage.reportFreeBytes(FLOOR / 2);
            afterASample();
            assertTrue(dao.diskSpace().refusesWrites());
            assertThrows(InsufficientStorageException.class, () -> dao.upsert(Entry.value(bytes("k"), bytes("v"), 10)),
                    "the first write after the status read is refused");
        }
    }

    @Test
    void aFloorOfZeroNeverRefuses() throws Exception {
        try (Dao dao = Engine.LSM.open(DaoOptions.builder(dir).storage(storage).minFreeBytes(0).build())) {
            storage.reportFreeBytes(0);
            afterASample();
            dao.upsert(Entry.value(bytes("k"), bytes("v"), 10));
            assertFalse(dao.diskSpace().refusesWrites());
        }
    }

    @Test
    void aNegativeFloorIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DaoOptions.builder(dir).minFreeBytes(-1).build());
        assertTrue(e.getMessage().contains("minFreeBytes"), e.getMessage());
    }
}
