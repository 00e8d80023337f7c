package io.kvstore.core.background;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller against a simulated foreground: each tick stands for {@link BudgetController#TICK_NANOS}
 * of a node whose requests the test describes, on a clock that moves only with the ticks and the lanes'
 * waits.
 */
class BudgetControllerTest {
    private static final long MIB = 1 << 20;
    private static final long FLOOR = MIB;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong nanos = new AtomicLong();
    private ForegroundSignal.Sample foreground = ForegroundSignal.Sample.IDLE;
    private BackgroundBudget budget;
    private BudgetController controller;

    @BeforeEach
    void node() {
        budget = BackgroundBudget.adaptive(FLOOR, nanos::get, nanos::addAndGet);
        budget.lane(BackgroundWork.COMPACTION, 40 * MIB);
        budget.lane(BackgroundWork.STREAM, 16 * MIB);
        budget.lane(BackgroundWork.HINTS, 8 * MIB);
        budget.lane(BackgroundWork.REPAIR, 8 * MIB);
        controller = new BudgetController(budget, () -> foreground);
    }

    private long tick() {
        nanos.addAndGet(BudgetController.TICK_NANOS);
        return controller.tick();
    }

    private void ticks(int n) {
        for (int i = 0; i < n; i++) {
            tick();
        }
    }

    private static ForegroundSignal.Sample load(long meanLatencyNanos, int inFlight) {
        return new ForegroundSignal.Sample(200, meanLatencyNanos, inFlight);
    }

    @Test
    void startsAtTheSumOfTheCapsAndStaysThereUnderAnUsualLoad() {
        assertEquals(72 * MIB, budget.ceilingBytesPerSecond());
        assertEquals(72 * MIB, budget.bytesPerSecond());
        foreground = load(MS, 4);
        ticks(100);
        assertEquals(72 * MIB, budget.bytesPerSecond());
        assertEquals(0, controller.pressedTicks());
    }

    @Test
    void yieldsWithinASecondWhenLatencyRises() {
        foreground = load(MS, 4);
        ticks(50);
        foreground = load(4 * MS, 4);
        for (int i = 1; i <= 10; i++) {
            long now = tick();
            if (i == 4) {
                assertTrue(now <= budget.ceilingBytesPerSecond() / 10, "a tenth within 400 ms, at " + now);
            }
        }
        assertEquals(FLOOR, budget.bytesPerSecond(), "the floor within a second");
    }

    @Test
    void yieldsWithinASecondWhenRequestsQueue() {
        foreground = load(MS, 4);
        ticks(50);
        foreground = load(MS, 40);
        ticks(10);
        assertEquals(FLOOR, budget.bytesPerSecond());
    }

    @Test
    void doesNotYieldToNoise() {
        foreground = load(MS, 4);
        ticks(50);
        foreground = load(MS * 3 / 2, 6);
        ticks(20);
        assertEquals(72 * MIB, budget.bytesPerSecond(), "half as slow again, two more in flight: not pressed");

        BackgroundBudget fast = BackgroundBudget.adaptive(FLOOR, nanos::get, nanos::addAndGet);
        fast.lane(BackgroundWork.COMPACTION, 40 * MIB);
        BudgetController local = new BudgetController(fast, () -> foreground);
        foreground = load(TimeUnit.MICROSECONDS.toNanos(100), 1);
        for (int i = 0; i < 50; i++) {
            local.tick();
        }
        foreground = load(TimeUnit.MICROSECONDS.toNanos(400), 1);
        for (int i = 0; i < 20; i++) {
            local.tick();
        }
        assertEquals(40 * MIB, fast.bytesPerSecond(), "a rise of 300 us is within the slack");
    }

    @Test
    void givesTheBandwidthBackStepByStepWhenTheForegroundIsIdle() {
        foreground = load(MS, 4);
        ticks(50);
        foreground = load(10 * MS, 50);
        ticks(20);
        assertEquals(FLOOR, budget.bytesPerSecond());

        foreground = ForegroundSignal.Sample.IDLE;
        long last = budget.bytesPerSecond();
        for (int i = 1; i <= BudgetController.STEPS_TO_CEILING; i++) {
            long now = tick();
            assertTrue(now > last, "grows at every idle tick: " + last + " then " + now);
            if (i == BudgetController.STEPS_TO_CEILING / 2) {
                assertTrue(now < budget.ceilingBytesPerSecond() * 3 / 4, "additive, not at once: " + now);
            }
            last = now;
        }
        assertEquals(budget.ceilingBytesPerSecond(), last, "the sum of the caps after " + BudgetController.STEPS_TO_CEILING
                + " idle ticks");
        ticks(10);
        assertEquals(budget.ceilingBytesPerSecond(), budget.bytesPerSecond(), "never above it");
    }

    @Test
    void aLastingHeavierLoadBecomesTheUsualAndTheBudgetComesBack() {
        foreground = load(MS, 4);
        ticks(50);
        foreground = load(3 * MS, 20);
        ticks(10);
        assertEquals(FLOOR, budget.bytesPerSecond());
        ticks(600);
        assertTrue(budget.bytesPerSecond() > budget.ceilingBytesPerSecond() / 2,
                "a minute of the same heavier load: " + budget.bytesPerSecond());
    }

    @Test
    void staysBetweenTheFloorAndTheCapsWhateverTheLoad() {
        Random random = new Random(7);
        for (int i = 0; i < 3000; i++) {
            foreground = random.nextInt(4) == 0 ? ForegroundSignal.Sample.IDLE
                    : load(TimeUnit.MICROSECONDS.toNanos(50 + random.nextInt(random.nextBoolean() ? 500 : 50_000)),
                    random.nextInt(random.nextBoolean() ? 8 : 200));
            long now = tick();
            assertTrue(now >= FLOOR && now <= budget.ceilingBytesPerSecond(), "tick " + i + ": " + now);
        }
    }

    @Test
    void aConsumerWaitingOnTheBudgetAtItsFloorGetsItsBytes() {
        foreground = load(MS, 4);
        ticks(50);
        foreground = load(20 * MS, 100);
        ticks(10);
        assertEquals(FLOOR, budget.bytesPerSecond());
        BudgetLane repair = budget.lane(BackgroundWork.REPAIR, 8 * MIB);
        for (BudgetLane lane : budget.lanes()) {
            lane.consumed(1);
        }
        assertTrue(repair.bytesPerSecond() >= FLOOR / 9, "its weight's part of the floor with every lane busy: "
                + repair.bytesPerSecond());
        long start = nanos.get();
        assertTrue(repair.acquire(MIB, () -> false));
        long waited = nanos.get() - start;
        assertTrue(waited > 0 && waited <= TimeUnit.SECONDS.toNanos(10), "1 MiB at the floor waited " + waited + " ns");
    }

    @Test
    void aFixedBudgetHasNoController() {
        assertThrows(IllegalArgumentException.class, () -> new BudgetController(BackgroundBudget.fixed(), () -> foreground));
    }
}
