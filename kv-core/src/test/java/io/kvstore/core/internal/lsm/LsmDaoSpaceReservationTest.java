package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskSpace;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Fault;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.assertAllPresent;
import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.writeAcknowledged;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flushes and compactions on a disk short of space: a compaction reserves its output's space before it
 * starts and waits, saying so, while it does not fit; a flush never waits for a reservation, and one
 * that finds the disk full is tried again once space returns. Nothing stops, nothing is lost.
 */
class LsmDaoSpaceReservationTest {
    @TempDir
    Path dir;
    final FaultyStorage storage = new FaultyStorage();

    DaoOptions options() {
        return DaoOptions.builder(dir).storage(storage).compactionStyle(CompactionStyle.SIZE_TIERED)
                .flushThresholdBytes(1 << 20).blockSizeBytes(1024).compactionTrigger(3).minFreeBytes(0).build();
    }

    /** Writes and flushes {@code tables} batches, one table each. */
    static Map<String, String> flushTables(LsmDao dao, int tables) throws IOException {
        Map<String, String> acknowledged = new LinkedHashMap<>();
        for (int t = 0; t < tables; t++) {
            acknowledged.putAll(writeAcknowledged(dao, "t" + t + "-" + System.nanoTime(), 40));
            dao.flush();
        }
        return acknowledged;
    }

    private long tableFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(file -> file.toString().endsWith(FileNames.TABLE_SUFFIX)).count();
        }
    }

    @Test
    void aCompactionThatDoesNotFitWaitsSaysSoAndRunsOnceSpaceReturns() throws Exception {
        try (LsmDao dao = LsmDao.open(options())) {
            storage.reportFreeBytes(1000); // less than any compaction's inputs
            Map<String, String> acknowledged = flushTables(dao, 3);
            dao.awaitCompactions();
            DiskSpace space = dao.diskSpace();
            assertTrue(space.compactionWaitsForSpace(), "the due compaction waits: " + space);
            assertFalse(space.refusesWrites(), "flushes and writes go on: " + space);
            assertEquals(3, dao.liveTables().length);
            assertEquals(0, dao.properties().backgroundErrors(), "waiting is not failing");
            InsufficientStorageException asked = assertThrows(InsufficientStorageException.class, dao::compact);
            assertTrue(asked.getMessage().contains("waits for space") && asked.getMessage().contains("1000 free"),
                    asked.getMessage());
            acknowledged.putAll(flushTables(dao, 1)); // flushes never wait for a reservation
            dao.awaitCompactions(); // the one this flush asked for waits too
            assertTrue(dao.diskSpace().compactionWaitsForSpace());
            assertEquals(4, dao.liveTables().length);
            assertAllPresent(dao, acknowledged);

            storage.reportFreeBytes(-1);
            // Nothing asks: the compaction tries again by itself.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (dao.diskSpace().compactionWaitsForSpace() || dao.liveTables().length > 1) {
                assertTrue(System.nanoTime() < deadline, "the compaction never resumed: " + dao.diskSpace());
                Thread.sleep(SpaceLedger.RETRY_MILLIS / 10);
            }
            assertEquals(0, dao.diskSpace().reservedBytes(), "every reservation given back");
            assertAllPresent(dao, acknowledged);
        }
    }

    @Test
    void writesHeldBackByLevelZeroAreRefusedAsOnAFullDiskWhileCompactionWaitsForSpace() throws Exception {
        DaoOptions leveled = options().toBuilder().compactionStyle(CompactionStyle.LEVELED).compactionTrigger(2)
                .idleCompactionDelay(java.time.Duration.ZERO).build();
        try (LsmDao dao = LsmDao.open(leveled)) {
            storage.reportFreeBytes(1000);
            Map<String, String> acknowledged = flushTables(dao, WriteController.SLOWDOWN_FACTOR * 2);
            dao.awaitCompactions();
            assertTrue(dao.diskSpace().compactionWaitsForSpace());
            InsufficientStorageException refused = assertThrows(InsufficientStorageException.class,
                    () -> dao.upsert(Entry.value(LsmDaoDiskFaultTest.b("slowed"), LsmDaoDiskFaultTest.b("v"), 1)),
                    "level 0 at the slowdown, below the stop: refused, not slowed until the stop and then stalled");
            assertTrue(refused.getMessage().contains("compaction waits for space"), refused.getMessage());
            assertTrue(dao.diskSpace().refusesWrites(), dao.diskSpace().toString());
            assertAllPresent(dao, acknowledged);

            storage.reportFreeBytes(-1);
            dao.compact();
            dao.upsert(Entry.value(LsmDaoDiskFaultTest.b("slowed"), LsmDaoDiskFaultTest.b("v"), 1));
            assertFalse(dao.diskSpace().refusesWrites());
            assertAllPresent(dao, acknowledged);
        }
    }

    @Test
    void aRunningCompactionHoldsItsReservationAndGivesItBack() throws Exception {
        try (LsmDao dao = LsmDao.open(options().toBuilder().compactionTrigger(100).build())) {
            flushTables(dao, 2);
            long inputs = 0;
            for (var table : dao.liveTables()) {
                inputs += table.fileSize();
            }
            AtomicLong seen = new AtomicLong(-1);
            dao.compactOldest(2, () -> seen.set(dao.diskSpace().reservedBytes()));
            assertEquals(inputs, seen.get(), "reserved while it ran: its inputs' bytes");
            assertEquals(0, dao.diskSpace().reservedBytes());
        }
    }

    @Test
    void aFlushThatFindsTheDiskFullWaitsAndWritesResumeWhenSpaceReturns() throws Exception {
        Map<String, String> acknowledged = new LinkedHashMap<>();
        try (LsmDao dao = LsmDao.open(options())) {
            acknowledged.putAll(flushTables(dao, 1));
            long tablesBefore = tableFiles();
            Fault full = storage.noSpace(".*" + FileNames.TABLE_SUFFIX, 1);
            acknowledged.putAll(writeAcknowledged(dao, "unflushed", 40));
            InsufficientStorageException waiting = assertThrows(InsufficientStorageException.class, dao::flush);
            assertTrue(full.fired() > 0);
            assertTrue(waiting.getMessage().contains("flush"), waiting.getMessage());
            assertEquals(tablesBefore, tableFiles(), "the table that found the disk full is deleted");
            assertEquals(0, dao.properties().backgroundErrors(), "waiting is not failing");
            // Writes go on into the active memtable; a switch needs room among the frozen ones, which
            // the waiting flush holds: writes that need one are refused as on a full disk.
            acknowledged.putAll(writeAcknowledged(dao, "meanwhile", 40));
            assertAllPresent(dao, acknowledged);

            storage.repair();
            dao.flush();
            acknowledged.putAll(writeAcknowledged(dao, "after", 40));
            dao.flush();
            assertFalse(dao.diskSpace().refusesWrites());
            assertAllPresent(dao, acknowledged);
        }
        try (LsmDao reopened = LsmDao.open(options())) {
            assertAllPresent(reopened, acknowledged);
        }
    }
}
