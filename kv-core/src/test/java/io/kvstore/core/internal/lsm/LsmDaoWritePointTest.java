package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DiskSpace;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.WritesStoppedException;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Fault;
import io.kvstore.core.testing.WritePointFault;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.assertAllPresent;
import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.b;
import static io.kvstore.core.internal.lsm.LsmDaoDiskFaultTest.closeQuietly;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every write point of the log, of flushes, of a compaction and of the manifest, one at a time: a
 * workload (writes that switch logs and flush, a flush, a compaction, more writes) runs once for each
 * write or fsync it makes, that one failing, and then the power is cut. A full disk from that write on
 * refuses writes, stops nothing, and once space returns the store flushes, compacts and writes again;
 * a failed fsync (with ENOSPC) stops writes for good while reads go on; and the reopened store has
 * every acknowledged write either way. A run per step of the workload cuts the power after it, with
 * no fault.
 */
@Tag("slow")
class LsmDaoWritePointTest {
    /** More runs than the workload has write points: the enumeration ends at the first fault that never fires. */
    private static final int MOST_RUNS = 400;
    private static final String VALUE_PAD = " ".repeat(1000);


    @TempDir
    Path root;

    static DaoOptions options(Path dir, FaultyStorage storage) {
        // Every write synced, so that every acknowledged write must outlast the power cut; logs of a few
        // writes, so that writes switch logs and flush; no background compaction, so that runs repeat.
        return DaoOptions.builder(dir).storage(storage).syncPolicy(SyncPolicy.EVERY_WRITE)
                .compactionStyle(CompactionStyle.SIZE_TIERED).compactionTrigger(100).flushThresholdBytes(6 << 10)
                .blockSizeBytes(1024).minFreeBytes(0).build();
    }

    /** The workload's steps, each keeping what it acknowledged; a step that fails is over. */
    private static final int STEPS = 4;

    private static void step(LsmDao dao, int step, Map<String, String> acknowledged) {
        try {
            switch (step) {
                case 1 -> write(dao, "first", 20, acknowledged);
                case 2 -> dao.flush();
                case 3 -> dao.compactOldest(2);
                case 4 -> write(dao, "second", 8, acknowledged);
                default -> throw new IllegalArgumentException("step " + step);
            }
        } catch (IOException expected) {
            // the fault under test, or what it left: judged by the assertions after the workload
        }
    }

    private static void write(LsmDao dao, String prefix, int count, Map<String, String> acknowledged) throws IOException {
        for (int i = 0; i < count; i++) {
            String key = prefix + "-" + i;
            try {
                dao.upsert(Entry.value(b(key), b(key + VALUE_PAD), 1 + i));
                acknowledged.put(key, key + VALUE_PAD);
            } catch (InsufficientStorageException refused) {
                // a full disk: the next write tries again
            }
        }
    }

    @ParameterizedTest
    @EnumSource(WritePointFault.class)
    void everyWritePointFailsAsSpecifiedAndLosesNoAcknowledgedWrite(WritePointFault kind) throws IOException {
        Set<String> hit = new TreeSet<>();
        int runs = 0;
        for (int nth = 1; nth <= (kind == WritePointFault.POWER_CUT_AFTER_NTH_STEP ? STEPS : MOST_RUNS); nth++) {
            Path dir = root.resolve("run-" + nth);
            FaultyStorage storage = new FaultyStorage();
            Map<String, String> acknowledged = new LinkedHashMap<>();
            LsmDao dao = LsmDao.open(options(dir, storage));
            Fault fault;
            try {
                write(dao, "base", 6, acknowledged); // a table and a log before the fault
                dao.flush();
                fault = kind.inject(storage, nth);
                for (int step = 1; step <= STEPS; step++) {
                    step(dao, step, acknowledged);
                    if (fault == null && step == nth) {
                        break;
                    }
                }
                if (fault != null) {
                    // Waits for the flushes the writes started, and for what a fault did to them, and for
                    // the next log file, whose directory fsync the fault may have met in the background.
                    step(dao, 2, acknowledged);
                    dao.awaitNextLog();
                }
                if (fault != null && fault.fired() == 0) {
                    storage.repair();
                    assertFalse(dao.diskSpace().stopsWrites());
                    closeQuietly(dao);
                    break; // past the workload's last write point
                }
                runs++;
                String where = "run " + nth + (fault == null ? " (cut after step " + nth + ")" : ", failed on " + fault.firedOn());
                if (fault != null) {
                    hit.add(WritePointFault.fileKind(fault.firedOn(), dir));
                }
                assertAllPresent(dao, acknowledged); // reads go on whatever happened
                if (kind == WritePointFault.NO_SPACE_FROM_NTH_WRITE) {
                    assertFalse(dao.diskSpace().stopsWrites(), where + ": a full disk stops nothing: " + dao.diskSpace());
                    storage.repair();
                    try {
                        dao.flush();
                        dao.compactOldest(2);
                        write(dao, "after", 3, acknowledged);
                    } catch (IOException e) {
                        fail(where + ": writes did not resume once space returned", e);
                    }
                    assertFalse(dao.diskSpace().refusesWrites(), where + ": " + dao.diskSpace());
                    assertEquals(3, acknowledged.keySet().stream().filter(key -> key.startsWith("after-")).count(), where);
                } else if (kind == WritePointFault.NTH_FSYNC_FAILS) {
                    DiskSpace space = dao.diskSpace();
                    assertTrue(space.stopsWrites() && space.writesStopped().contains(dir.toString()),
                            where + ": a failed fsync stops writes, naming the file: " + space);
                    storage.repair();
                    assertThrows(WritesStoppedException.class, () -> dao.upsert(Entry.value(b("k"), b("v"), 1)),
                            where + ": never tried again as if it had been safe");
                }
                storage.powerCut();
            } finally {
                closeQuietly(dao);
            }
            storage.powerOn();
            try (LsmDao reopened = LsmDao.open(options(dir, storage))) {
                assertAllPresent(reopened, acknowledged);
                assertFalse(reopened.diskSpace().stopsWrites());
                reopened.upsert(Entry.value(b("reopened"), b("v"), 1));
            } catch (IOException | RuntimeException | AssertionError e) {
                throw new AssertionError("run " + nth + " of " + kind + " does not reopen with every acknowledged write", e);
            }
        }
        System.out.println(kind + ": " + runs + " runs, faults on " + hit);
        if (kind == WritePointFault.POWER_CUT_AFTER_NTH_STEP) {
            assertEquals(STEPS, runs);
        } else {
            assertTrue(runs < MOST_RUNS, "the workload never ran out of write points");
            assertTrue(hit.containsAll(Set.of("log", "table", "manifest")), "the faults met only " + hit);
            if (kind == WritePointFault.NTH_FSYNC_FAILS) {
                assertTrue(hit.contains("directory"), "the faults met only " + hit);
            }
        }
    }
}
