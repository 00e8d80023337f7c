package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetController;
import io.kvstore.core.background.ForegroundSignal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compactions keep to their rate while level 0 keeps up, and run unlimited while it is behind. */
class CompactionPacingTest {
    private static final long MIB = 1 << 20;
    private static final int TRIGGER = 4;
    /** A limit under which the tables below would take minutes to merge. */
    private static final long CRAWL_BYTES_PER_S = 1 << 10;

    @TempDir
    Path dir;

    /** A clock that only moves when the limiter sleeps. */
    private final AtomicLong nanos = new AtomicLong();

    @Test
    void waitsForTheRateOnlyWhileTheStoreKeepsUp() {
        AtomicBoolean behind = new AtomicBoolean();
        CompactionPacing pacing = new CompactionPacing(
                BackgroundBudget.fixed(nanos::get, nanos::addAndGet).lane(BackgroundWork.COMPACTION, MIB), behind::get);
        assertTrue(pacing.charge(MIB / 10, () -> false), "the burst");
        assertEquals(0, nanos.get(), "the burst is free");

        behind.set(true);
        for (int i = 0; i < 100; i++) {
            assertTrue(pacing.charge(MIB, () -> false));
        }
        assertEquals(0, nanos.get(), "100 MiB written while behind, without a wait");

        behind.set(false);
        assertTrue(pacing.charge(MIB, () -> false));
        assertTrue(nanos.get() >= TimeUnit.MILLISECONDS.toNanos(990), "1 MiB at 1 MiB/s waited " + nanos.get() + " ns");
    }

    @Test
    void aCompactionThatIsBehindIsExemptFromABudgetAtItsFloor() {
        AtomicBoolean behind = new AtomicBoolean(true);
        BackgroundBudget budget = BackgroundBudget.adaptive(64 << 10, nanos::get, nanos::addAndGet);
        budget.lane(BackgroundWork.REPAIR, MIB).consumed(1);
        CompactionPacing pacing = CompactionPacing.of(budget, 0, TRIGGER, () -> behind.get() ? 2 * TRIGGER : 0);
        BudgetController controller = new BudgetController(budget, () -> new ForegroundSignal.Sample(100, 1_000_000, 100));
        for (int i = 0; i < 20; i++) {
            controller.tick();
        }
        assertEquals(64 << 10, budget.bytesPerSecond(), "a queue of requests took the budget to its floor");
        for (int i = 0; i < 100; i++) {
            assertTrue(pacing.charge(MIB, () -> false));
        }
        assertEquals(0, nanos.get(), "100 MiB written while behind, without a wait");
        assertEquals(100 * MIB, pacing.lane().consumedBytes(), "counted all the same");

        behind.set(false);
        assertTrue(pacing.charge(MIB, () -> false));
        assertTrue(nanos.get() >= TimeUnit.SECONDS.toNanos(1), "1 MiB at its share of the floor waited " + nanos.get() + " ns");
    }

    @Test
    void noRateIsNoPacing() {
        assertNull(CompactionPacing.of(0, TRIGGER, () -> 0));
    }

    @Test
    void aCompactionCrawlingAtItsLimitRunsAtFullSpeedOnceLevelZeroReachesTwiceTheTrigger() throws Exception {
        int behindAt = CompactionPacing.BEHIND_FACTOR * TRIGGER;
        try (LsmDao dao = LsmDao.open(options().compactionTrigger(TRIGGER).compactionBytesPerSecond(CRAWL_BYTES_PER_S).build())) {
            for (int t = 0; t < behindAt; t++) {
                for (int i = 0; i < 400; i++) {
                    dao.upsert(Entry.value(key(i * behindAt + t), new byte[100], t + 1));
                }
                dao.flush();
            }
            long bytes = Arrays.stream(dao.liveTables()).mapToLong(table -> table.fileSize()).sum();
            assertTrue(bytes / CRAWL_BYTES_PER_S > 300, bytes + " bytes would take minutes at the limit");
            // The first trigger's worth started merging at the limit; the second pushes level 0 to twice
            // the trigger, and what runs then must finish at full speed, long before the limit allows.
            assertTrue(dao.versions().awaitFlushedLevelZeroBelow(behindAt, TimeUnit.SECONDS.toNanos(60), () -> { }),
                    "level 0 still at " + Arrays.toString(dao.liveLevels()));
            assertEquals(0, dao.properties().writeStalls());
            for (int k = 0; k < 400 * behindAt; k++) {
                assertArrayEquals(new byte[100], dao.get(key(k)).value(), "key " + k);
            }
        }
    }

    private DaoOptions.Builder options() {
        return DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED).compression(Compression.NONE)
                .flushThresholdBytes(1 << 20).idleCompactionDelay(Duration.ZERO).syncPolicy(SyncPolicy.NONE);
    }

    private static byte[] key(int k) {
        return String.format("k%06d", k).getBytes(StandardCharsets.UTF_8);
    }

}
