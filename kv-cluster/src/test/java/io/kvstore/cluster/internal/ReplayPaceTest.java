package io.kvstore.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The replay pace against a simulated target: grows while answers are quick, halves when they are not. */
class ReplayPaceTest {
    private static final long CAP = 409_600; // 4 MiB/s over a 100 ms period
    private static final long MS = 1_000_000;

    @Test
    void aQuickTargetGetsTheCapWithinAFewBatches() {
        ReplayPace pace = new ReplayPace(CAP);
        assertEquals(CAP / 64, pace.batchBytes(), "replay starts small");
        int batches = 0;
        while (pace.batchBytes() < CAP) {
            pace.answered(pace.batchBytes(), MS, true);
            batches++;
        }
        assertEquals(6, batches, "doubling from a 64th of the cap");
        pace.answered(CAP, MS, true);
        assertEquals(CAP, pace.batchBytes(), "never past the configured rate");
    }

    @Test
    void aLateBatchOrAFailureHalvesItAndGrowthIsThenAdditive() {
        ReplayPace pace = new ReplayPace(CAP);
        for (int i = 0; i < 10; i++) {
            pace.answered(pace.batchBytes(), MS, true);
        }
        assertEquals(CAP, pace.batchBytes());
        pace.answered(CAP, 100 * MS, true);
        assertEquals(CAP / 2, pace.batchBytes(), "late: past three times the fastest answer and the 20 ms floor");
        pace.answered(CAP / 2, MS, false);
        assertEquals(CAP / 4, pace.batchBytes(), "a failure (a timeout, a 503) halves it too");
        pace.answered(CAP / 4, MS, true);
        assertEquals(CAP / 4 + CAP / 8, pace.batchBytes(), "after a back-off it grows by an eighth of the cap, not doubling");
    }

    @Test
    void aTargetThatStaysSlowKeepsTheBatchAtTheFloorButReplayGoesOn() {
        ReplayPace pace = new ReplayPace(CAP);
        for (int i = 0; i < 50; i++) {
            pace.answered(Math.max(pace.batchBytes(), 100), 500 * MS, true);
        }
        assertEquals(1, pace.batchBytes(), "one hint per period: slowed, never stopped (the store hands at least one)");
    }

    @Test
    void theTargetFollowsTheFastestRecentAnswerAndForgetsAnOldOne() {
        ReplayPace pace = new ReplayPace(CAP);
        assertEquals(ReplayPace.MIN_TARGET_NANOS, pace.targetNanos(), "nothing seen yet");
        pace.answered(1, 10 * MS, true);
        assertEquals(30 * MS, pace.targetNanos(), "three times the fastest answer");
        pace.answered(1, MS, true);
        assertEquals(ReplayPace.MIN_TARGET_NANOS, pace.targetNanos(), "never below the floor");
        for (int i = 0; i < 2 * ReplayPace.WINDOW; i++) {
            pace.answered(1, 15 * MS, true);
        }
        assertEquals(45 * MS, pace.targetNanos(), "a node that got slower for good is judged by its new speed");
    }

    @Test
    void aShortBatchDoesNotRaiseTheAllowance() {
        ReplayPace pace = new ReplayPace(CAP);
        long before = pace.batchBytes();
        pace.answered(before / 4, MS, true);
        assertEquals(before, pace.batchBytes(), "a few hints left say nothing about what the target could take");
        assertThrows(IllegalArgumentException.class, () -> new ReplayPace(0));
        assertTrue(pace.targetNanos() >= ReplayPace.MIN_TARGET_NANOS);
    }
}
