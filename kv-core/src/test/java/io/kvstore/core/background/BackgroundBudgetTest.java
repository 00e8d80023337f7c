package io.kvstore.core.background;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How a budget is shared among its lanes, on a clock that moves only when the test or a lane's wait moves it. */
class BackgroundBudgetTest {
    private static final long MIB = 1 << 20;

    private final AtomicLong nanos = new AtomicLong();

    private BackgroundBudget adaptive(long floor) {
        return BackgroundBudget.adaptive(floor, nanos::get, nanos::addAndGet);
    }

    /** Time passes without a draw on any lane, and the budget notices. */
    private void quiet(BackgroundBudget budget) {
        nanos.addAndGet(BudgetLane.IDLE_NANOS);
        budget.tick();
    }

    @Test
    void busyLanesShareByWeightAndAnIdleLanesShareGoesToTheBusyOnes() {
        BackgroundBudget budget = adaptive(MIB);
        BudgetLane stream = budget.lane(BackgroundWork.STREAM, 64 * MIB);
        BudgetLane repair = budget.lane(BackgroundWork.REPAIR, 64 * MIB);
        budget.setBytesPerSecond(30 * MIB);
        stream.consumed(1);
        repair.consumed(1);
        assertEquals(20 * MIB, stream.bytesPerSecond(), "weight 2 of 3");
        assertEquals(10 * MIB, repair.bytesPerSecond(), "weight 1 of 3");

        quiet(budget);
        repair.consumed(1);
        budget.tick();
        assertEquals(30 * MIB, repair.bytesPerSecond(), "the idle stream's share goes to repair");

        stream.consumed(1);
        assertEquals(10 * MIB, repair.bytesPerSecond(), "and comes back at the stream's first draw");
    }

    @Test
    void aLaneNeverGetsMoreThanItsCapAndTheRestGoesToTheOthers() {
        BackgroundBudget budget = adaptive(MIB);
        BudgetLane compaction = budget.lane(BackgroundWork.COMPACTION, 8 * MIB);
        BudgetLane hints = budget.lane(BackgroundWork.HINTS, 64 * MIB);
        budget.setBytesPerSecond(40 * MIB);
        compaction.consumed(1);
        hints.consumed(1);
        assertEquals(8 * MIB, compaction.bytesPerSecond(), "its cap, below its weight's 4/6 of 40 MiB/s");
        assertEquals(32 * MIB, hints.bytesPerSecond(), "the rest");
    }

    @Test
    void compactionsWeighMostWhenEveryKindHasWork() {
        BackgroundBudget budget = adaptive(MIB);
        for (BackgroundWork work : BackgroundWork.values()) {
            budget.lane(work, 0).consumed(1);
        }
        budget.setBytesPerSecond(50 * MIB);
        long compaction = budget.lane(BackgroundWork.COMPACTION, 0).bytesPerSecond();
        for (BudgetLane lane : budget.lanes()) {
            if (lane.work() != BackgroundWork.COMPACTION) {
                assertTrue(compaction >= 2 * lane.bytesPerSecond(), lane.work() + " at " + lane.bytesPerSecond()
                        + ", compaction at " + compaction);
            }
        }
        assertEquals(20 * MIB, compaction, "weight 4 of 10");
    }

    @Test
    void anIdleLaneIsReadyForItsFirstDrawAndEveryLaneKeepsItsPartOfTheFloor() {
        BackgroundBudget budget = adaptive(9 * MIB);
        BudgetLane compaction = budget.lane(BackgroundWork.COMPACTION, 64 * MIB);
        BudgetLane repair = budget.lane(BackgroundWork.REPAIR, 64 * MIB);
        budget.setBytesPerSecond(0);
        assertEquals(9 * MIB, budget.bytesPerSecond(), "held at the floor");
        compaction.consumed(1);
        assertEquals(9 * MIB, compaction.bytesPerSecond(), "alone with work: all of it");
        assertEquals(9 * MIB / 5, repair.bytesPerSecond(), "idle, but given what it would get by joining");
        long start = nanos.get();
        assertTrue(repair.acquire(2 * MIB, () -> false));
        long waited = nanos.get() - start;
        assertTrue(waited <= TimeUnit.SECONDS.toNanos(2), "2 MiB at a fifth of 9 MiB/s waited " + waited + " ns");
    }

    @Test
    void aFixedBudgetGivesEachLaneItsCapAndNoCapIsNoLimit() {
        BackgroundBudget budget = BackgroundBudget.fixed(nanos::get, nanos::addAndGet);
        BudgetLane compaction = budget.lane(BackgroundWork.COMPACTION, 0);
        BudgetLane stream = budget.lane(BackgroundWork.STREAM, 4 * MIB);
        BudgetLane repair = budget.lane(BackgroundWork.REPAIR, 2 * MIB);
        stream.consumed(1);
        repair.consumed(1);
        compaction.consumed(1);
        assertEquals(4 * MIB, stream.bytesPerSecond());
        assertEquals(2 * MIB, repair.bytesPerSecond());
        assertEquals(0, compaction.bytesPerSecond());
        assertTrue(compaction.acquire(1L << 40, () -> false));
        assertEquals(0, nanos.get(), "an uncapped lane of a fixed budget never waits");
        assertEquals(6 * MIB, budget.bytesPerSecond());
        assertThrows(IllegalStateException.class, () -> budget.setBytesPerSecond(MIB));
    }

    @Test
    void aLaneIsMadeOnceAndCountsWhatItsWorkDrew() {
        BackgroundBudget budget = adaptive(MIB);
        BudgetLane lane = budget.lane(BackgroundWork.HINTS, 8 * MIB);
        assertSame(lane, budget.lane(BackgroundWork.HINTS, 4 * MIB));
        assertEquals(4 * MIB, lane.capBytesPerSecond());
        assertEquals(-1, lane.backlogBytes());
        lane.backlog(() -> 42);
        assertEquals(42, lane.backlogBytes());
        lane.consumed(100);
        assertTrue(lane.acquire(200, () -> false));
        assertEquals(300, lane.consumedBytes());
        assertEquals(4 * MIB / 10, lane.bytesPer(TimeUnit.MILLISECONDS.toNanos(100)));
        assertThrows(IllegalArgumentException.class, () -> budget.lane(BackgroundWork.REPAIR, -1));
        assertThrows(IllegalArgumentException.class, () -> BackgroundBudget.adaptive(0));
    }
}
