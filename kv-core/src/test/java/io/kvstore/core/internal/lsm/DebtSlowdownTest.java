package io.kvstore.core.internal.lsm;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The writers' rate as a function of the compaction debt: continuous, falling in proportion, with a floor. */
class DebtSlowdownTest {
    private static final long BASE = 64L << 20;
    private static final long DELAYED = 16L << 20;
    private static final long SOFT = DebtSlowdown.SOFT_FACTOR * BASE;
    private static final long HARD = DebtSlowdown.HARD_FACTOR * BASE;

    private final AtomicLong now = new AtomicLong();
    private final DebtSlowdown slowdown = new DebtSlowdown(4, BASE, DELAYED, now::get);

    @Test
    void underTheSoftLimitWritersAreNotHeldBack() {
        assertEquals(Long.MAX_VALUE, slowdown.rateAt(0, 100L << 20));
        assertEquals(Long.MAX_VALUE, slowdown.rateAt(SOFT - 1, 100L << 20));
    }

    @Test
    void theRateFallsLinearlyFromTheWritersOwnToTheFloor() {
        long writers = 100L << 20;
        assertEquals(writers, slowdown.rateAt(SOFT, writers), "no step at the soft limit");
        assertEquals(writers / 2, slowdown.rateAt((SOFT + HARD) / 2, writers), 1);
        assertEquals(writers / 4, slowdown.rateAt(SOFT + 3 * (HARD - SOFT) / 4, writers), 1);
        assertEquals(WriteController.MIN_DELAYED_WRITE_BYTES_PER_SECOND, slowdown.rateAt(HARD, writers));
        assertEquals(WriteController.MIN_DELAYED_WRITE_BYTES_PER_SECOND, slowdown.rateAt(100 * HARD, writers));
        long previous = Long.MAX_VALUE;
        for (long debt = SOFT; debt <= HARD; debt += (HARD - SOFT) / 1000) {
            long rate = slowdown.rateAt(debt, writers);
            assertTrue(rate <= previous, "never rises with the debt: " + debt);
            assertTrue(previous == Long.MAX_VALUE || previous - rate <= writers / 900, "no step at " + debt);
            previous = rate;
        }
    }

    @Test
    void slowWritersStartFromTheDelayedWriteRate() {
        assertEquals(DELAYED, slowdown.rateAt(SOFT, 1 << 20));
        assertEquals(DELAYED / 2, slowdown.rateAt((SOFT + HARD) / 2, 1 << 20), 1);
    }

    @Test
    void theWritersRateIsMeasuredWhileUnslowedAndKeptOnceSlowed() {
        long writers = 200L << 20; // far above the delayed-write rate
        for (int window = 0; window < 40; window++) {
            slowdown.written(writers / 10);
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
            assertEquals(Long.MAX_VALUE, slowdown.rateFor(0), "no debt, no limit");
        }
        long measured = slowdown.writersRate();
        assertTrue(Math.abs(measured - writers) < writers / 20, "measured " + measured + " of " + writers);
        assertEquals(measured, slowdown.rateFor(SOFT), 1, "at the soft limit, the rate they had");

        for (int window = 0; window < 40; window++) { // slowed to a crawl: what they write now is not their rate
            slowdown.written(1 << 10);
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
            slowdown.rateFor((SOFT + HARD) / 2);
        }
        assertEquals(measured, slowdown.writersRate(), "kept while slowed");
        assertEquals(measured / 2, slowdown.rateFor((SOFT + HARD) / 2), 1);
    }
}
