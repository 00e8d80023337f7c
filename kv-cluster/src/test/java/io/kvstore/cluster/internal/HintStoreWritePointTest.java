package io.kvstore.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kvstore.cluster.ClockLease;
import io.kvstore.cluster.HybridClock;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Fault;
import io.kvstore.core.testing.WritePointFault;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every write point of the hint store, one at a time: its engine's log, tables and manifest and its
 * clock lease. A workload (hints appended, some delivered and removed, a flush, a compaction, more hints)
 * runs once for each write or fsync it makes, that one failing, and then the power is cut; a run per
 * step of the workload cuts the power after it, with no fault. Whatever failed: an append or a removal
 * that failed said so with an {@link IOException}; every hint whose append returned, and whose removal
 * did not, is there after the reopen, counted, and no removed hint comes back; the reopened store takes
 * new hints, also for writes whose hints were removed before, though its wall clock be behind. A full
 * disk lets appends resume once space returns, without a reopen.
 */
@Tag("slow")
class HintStoreWritePointTest {
    /** More runs than the workload has write points: the enumeration ends at the first fault that never fires. */
    private static final int MOST_RUNS = 400;
    private static final String VALUE_PAD = " ".repeat(700);
    private static final List<String> TARGETS = List.of("http://b:2", "http://c:3");
    /** The wall clock's start; each reading is past the clock lease's bound, so that each extends it. */
    private static final long START_MILLIS = 1_700_000_000_000L;
    private static final int STEPS = 5;


    @TempDir
    Path root;

    /** The hint store of a run, on its disk, with what it acknowledged. */
    private static final class Run {
        final Path dir;
        final FaultyStorage storage;
        final Dao dao;
        final HintStore store;
        final HybridClock clock;
        /** Hints whose append returned and whose removal did not, by stored key. */
        final Map<String, Hint> kept = new TreeMap<>();
        /** Hints whose removal returned. */
        final Map<String, Hint> removed = new TreeMap<>();
        /** Appends and removals that threw. */
        int failed;

        Run(Path dir, FaultyStorage storage, long startMillis) throws IOException {
            this.dir = dir;
            this.storage = storage;
            AtomicLong wall = new AtomicLong(startMillis);
            // Each timestamp passes the lease's bound: the lease is written in line with every append and removal.
            this.clock = new HybridClock(() -> wall.addAndGet(HybridClock.LEASE_MILLIS + 1_000),
                    ClockLease.open(storage, dir));
            this.dao = Engine.LSM.open(options(dir, storage));
            HintStore opened;
            try {
                opened = new HintStore(dao, clock);
            } catch (IOException | RuntimeException e) {
                closeQuietly(dao);
                throw e;
            }
            this.store = opened;
        }

        void append(int count, String prefix) {
            for (int i = 0; i < count; i++) {
                String target = TARGETS.get(i % TARGETS.size());
                Entry write = write(prefix + "-" + i, 1_000 + i);
                try {
                    store.append(target, write);
                    Hint hint = hintOf(target, write);
                    kept.put(id(hint), hint);
                } catch (IOException e) {
                    failed++;
                } catch (RuntimeException e) {
                    throw new AssertionError("a failed append must be an IOException", e);
                }
            }
        }

        void removeOldest(int count) {
            for (String target : TARGETS) {
                List<Hint> oldest;
                try {
                    oldest = store.oldest(target, Long.MAX_VALUE, count);
                } catch (IOException e) {
                    throw new AssertionError("reads go on", e);
                }
                for (Hint hint : oldest) {
                    try {
                        store.remove(hint);
                        kept.remove(id(hint));
                        removed.put(id(hint), hint);
                    } catch (IOException e) {
                        kept.remove(id(hint)); // removed or not: either may outlast the reopen
                        failed++;
                    } catch (RuntimeException e) {
                        throw new AssertionError("a failed removal must be an IOException", e);
                    }
                }
            }
        }

        void step(int step) {
            switch (step) {
                case 1 -> append(16, "first");
                case 2 -> removeOldest(3);
                case 3 -> flush();
                case 4 -> compact();
                case 5 -> append(6, "second");
                default -> throw new IllegalArgumentException("step " + step);
            }
        }

        void flush() {
            try {
                dao.flush();
            } catch (IOException expected) {
                // the fault under test: judged by what the reopened store holds
            }
        }

        void compact() {
            try {
                dao.compact();
            } catch (IOException expected) {
                // the fault under test, as for a flush
            }
        }
    }

    static DaoOptions options(Path dir, FaultyStorage storage) {
        // As a node opens its hint store, but every write synced, so that every acknowledged hint must
        // outlast the power cut; small logs, so that appends switch logs and flush; no background compaction.
        return DaoOptions.builder(dir).storage(storage).syncPolicy(SyncPolicy.EVERY_WRITE)
                .compactionStyle(CompactionStyle.SIZE_TIERED).compactionTrigger(100).flushThresholdBytes(6 << 10)
                .blockSizeBytes(1024).blockCacheBytes(0).minFreeBytes(0).build();
    }

    @ParameterizedTest
    @EnumSource(WritePointFault.class)
    void everyWritePointFailsAsAnExceptionAndLosesNoAcknowledgedHint(WritePointFault kind) throws IOException {
        Set<String> hit = new TreeSet<>();
        int runs = 0;
        for (int nth = 1; nth <= (kind == WritePointFault.POWER_CUT_AFTER_NTH_STEP ? STEPS : MOST_RUNS); nth++) {
            FaultyStorage storage = new FaultyStorage();
            Run run = new Run(root.resolve("run-" + nth), storage, START_MILLIS);
            Fault fault;
            try {
                run.append(4, "base"); // hints in a table and in a log before the fault
                run.flush();
                assertEquals(0, run.failed);
                fault = kind.inject(storage, nth);
                for (int step = 1; step <= STEPS; step++) {
                    run.step(step);
                    if (fault == null && step == nth) {
                        break;
                    }
                }
                if (fault != null) {
                    run.flush(); // waits for the flushes the appends started, and for what a fault did to them
                }
                if (fault != null && fault.fired() == 0) {
                    assertEquals(0, run.failed);
                    break; // past the workload's last write point
                }
                runs++;
                String where = kind + " run " + nth + (fault == null ? " (cut after step " + nth + ")"
                        : ", failed on " + fault.firedOn());
                if (fault != null) {
                    hit.add(kind(fault.firedOn(), run.dir));
                }
                assertHolds(run, run.store, where + ", before the reopen");
                if (kind == WritePointFault.NO_SPACE_FROM_NTH_WRITE) {
                    storage.repair();
                    run.flush();
                    int failed = run.failed;
                    run.append(3, "after");
                    assertEquals(failed, run.failed, where + ": appends did not resume once space returned");
                }
                storage.powerCut();
            } finally {
                closeQuietly(run.dao);
            }
            storage.powerOn();
            reopen(run, "run " + nth + " of " + kind);
        }
        System.out.println(kind + ": " + runs + " runs, faults on " + hit);
        if (kind == WritePointFault.POWER_CUT_AFTER_NTH_STEP) {
            assertEquals(STEPS, runs);
        } else {
            assertTrue(runs < MOST_RUNS, "the workload never ran out of write points");
            assertTrue(hit.containsAll(Set.of("log", "table", "manifest", "clock lease")), "the faults met only " + hit);
            if (kind == WritePointFault.NTH_FSYNC_FAILS) {
                assertTrue(hit.contains("directory"), "the faults met only " + hit);
            }
        }
    }

    /**
     * Reopens {@code run}'s store after its power cut, with the wall clock back at its start: it holds
     * what it acknowledged, and takes new hints, the removed ones' writes included.
     */
    private static void reopen(Run run, String where) {
        Run reopened;
        try {
            reopened = new Run(run.dir, run.storage, START_MILLIS);
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(where + ": the hint store does not reopen", e);
        }
        try {
            assertHolds(run, reopened.store, where + ", reopened");
            long newest = Long.MIN_VALUE;
            try (CloseableIterator<Entry> all = reopened.dao.range(null, null)) {
                while (all.hasNext()) {
                    newest = Math.max(newest, all.next().timestamp());
                }
            }
            long first = reopened.clock.latest();
            assertTrue(first >= newest, where + ": the reopened clock starts at " + first + ", behind a hint or removal"
                    + " stored at " + newest + ": hints appended now could be shadowed");
            List<Hint> again = new ArrayList<>(run.removed.values());
            for (Hint hint : again) {
                reopened.store.append(hint.target, hint.entry);
                run.kept.put(id(hint), hint);
            }
            run.removed.clear();
            reopened.append(2, "reopened");
            assertEquals(0, reopened.failed, where + ": the reopened store refuses hints");
            run.kept.putAll(reopened.kept);
            assertHolds(run, reopened.store, where + ", with the removed hints' writes hinted again");
        } catch (IOException e) {
            throw new AssertionError(where + ": the reopened store refuses hints", e);
        } finally {
            closeQuietly(reopened.dao);
        }
    }

    /**
     * {@code store} holds every hint {@code run} kept and none it removed, counted as it holds them; what
     * else it holds are hints whose append or removal failed.
     */
    private static void assertHolds(Run run, HintStore store, String where) {
        Map<String, Hint> found = new LinkedHashMap<>();
        for (String target : TARGETS) {
            List<Hint> hints;
            try {
                hints = store.oldest(target, Long.MAX_VALUE, Integer.MAX_VALUE);
            } catch (IOException e) {
                throw new AssertionError(where + ": the hints cannot be read", e);
            }
            assertEquals(hints.size(), store.pendingCount(target), where + ": hints counted for " + target);
            for (Hint hint : hints) {
                found.put(id(hint), hint);
            }
        }
        for (Map.Entry<String, Hint> kept : run.kept.entrySet()) {
            Hint hint = found.get(kept.getKey());
            if (hint == null) {
                fail(where + ": acknowledged hint " + kept.getValue() + " lost; the store holds " + found.keySet());
            }
            assertEquals(kept.getValue().entry, hint.entry, where);
        }
        for (String removed : run.removed.keySet()) {
            assertFalse(found.containsKey(removed), where + ": removed hint " + removed + " came back");
        }
        if (run.failed == 0) {
            assertEquals(run.kept.keySet(), found.keySet(), where + ": nothing failed, yet");
        }
    }

    private static Entry write(String key, long timestamp) {
        return Entry.value(key.getBytes(StandardCharsets.UTF_8), (key + VALUE_PAD).getBytes(StandardCharsets.UTF_8),
                timestamp);
    }

    private static Hint hintOf(String target, Entry write) {
        return new Hint(target, write, null);
    }

    private static String id(Hint hint) {
        return hint.target + " " + hint.entry.timestamp() + " " + new String(hint.entry.key(), StandardCharsets.UTF_8);
    }

    /** Which of the hint store's files {@code file} is. */
    private static String kind(Path file, Path dir) {
        return file.getFileName().toString().startsWith(ClockLease.FILE_NAME) ? "clock lease"
                : WritePointFault.fileKind(file, dir);
    }

    private static void closeQuietly(Dao dao) {
        try {
            dao.close();
        } catch (IOException | RuntimeException expected) {
            // the disk is failing or off
        }
    }
}
