package io.kvstore.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BodyMemoryBudgetTest {
    private static final long MIB = 1 << 20;

    @Test
    void aBodyIsRefusedWhenItDoesNotFitTheBudgetOrWouldFillTheHeap() {
        Overload overload = new Overload(Duration.ofSeconds(2));
        AtomicLong heapUsed = new AtomicLong(10 * MIB);
        BodyMemoryBudget budget = new BodyMemoryBudget(4 * MIB, overload, heapUsed::get, 100 * MIB, MIB / 2);

        assertTrue(budget.tryReserve(3 * MIB));
        assertFalse(budget.tryReserve(2 * MIB), "over the budget");
        assertEquals(3 * MIB, budget.inUse(), "a refusal takes nothing");
        budget.release(3 * MIB);

        heapUsed.set(75 * MIB);
        assertFalse(budget.tryReserve(3 * MIB), "75 MiB used + twice 3 MiB passes 80% of a 100 MiB heap");
        assertTrue(budget.tryReserve(2 * MIB), "75 + 4 MiB does not");
        assertTrue(budget.tryReserve(0), "an empty body takes nothing");
        assertEquals(2, overload.refusedCount(Overload.Reason.BODY_MEMORY));
    }

    @Test
    void onlyBodiesG1KeepsInRegionsOfTheirOwnAreCheckedAgainstTheHeap() {
        Overload overload = new Overload(Duration.ofSeconds(2));
        // The young generation's garbage counts as in use until the next collection.
        AtomicLong heapUsed = new AtomicLong(95 * MIB);
        BodyMemoryBudget budget = new BodyMemoryBudget(4 * MIB, overload, heapUsed::get, 100 * MIB, MIB / 2);

        assertTrue(budget.tryReserve(1024), "a 1 KB body is bounded by the byte budget alone");
        assertTrue(budget.tryReserve(MIB / 2 - 1), "below half a region");
        assertFalse(budget.tryReserve(MIB / 2), "half a region: checked against the heap");
        assertFalse(budget.tryReserve(100 << 10, MIB), "a chunked body's growth is checked by the array it grows to");
        assertEquals(1024 + MIB / 2 - 1, budget.inUse());
        assertEquals(2, overload.refusedCount(Overload.Reason.BODY_MEMORY));
        heapUsed.set(10 * MIB);
        assertTrue(budget.tryReserve(MIB), "room again once collected");
    }
}
