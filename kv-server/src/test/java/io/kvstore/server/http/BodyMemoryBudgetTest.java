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
        BodyMemoryBudget budget = new BodyMemoryBudget(4 * MIB, overload, heapUsed::get, 100 * MIB);

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
}
