package io.kvstore.server.metrics;

import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BudgetController;
import io.kvstore.core.background.BudgetLane;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * The node's background budget as meters: the budget now and its bounds, and for each kind of
 * background work its share, the bytes it drew and the work waiting for it where known. Read from the
 * budget when scraped; nothing is recorded here.
 */
public final class BackgroundMetrics {
    private BackgroundMetrics() {
    }

    /** @param controller the controller of an adaptive budget, once started (null for a fixed one) */
    public static void bind(MeterRegistry registry, BackgroundBudget budget, Supplier<BudgetController> controller) {
        Gauge.builder("kv.background.budget", budget, BackgroundBudget::bytesPerSecond).baseUnit("bytes.per.second")
                .description("Bytes per second the node's background work may use now (--background-budget)")
                .strongReference(true).register(registry);
        Gauge.builder("kv.background.budget.min", budget, BackgroundBudget::floorBytesPerSecond).baseUnit("bytes.per.second")
                .description("Least bytes per second an adaptive budget keeps (--background-budget-min-bytes-per-s; 0 when fixed)")
                .strongReference(true).register(registry);
        Gauge.builder("kv.background.budget.max", budget, BackgroundBudget::ceilingBytesPerSecond).baseUnit("bytes.per.second")
                .description("Most bytes per second the budget reaches: the sum of the background rate flags")
                .strongReference(true).register(registry);
        Gauge.builder("kv.background.foreground.latency.baseline", controller, c -> c.get() == null ? Double.NaN
                        : c.get().baselineLatencyNanos() / 1e9).baseUnit("seconds")
                .description("Mean point request latency the budget's controller takes as usual; above twice it, it backs off")
                .strongReference(true).register(registry);
        // A function counter holds its object weakly: the registry, which lives as long as the node.
        FunctionCounter.builder("kv.background.backoffs", registry, r -> controller.get() == null ? 0
                        : controller.get().pressedTicks())
                .description("Ticks of the budget's controller that found requests slowed or queued and lowered the budget")
                .register(registry);
        for (BudgetLane lane : budget.lanes()) {
            String work = lane.work().label();
            Gauge.builder("kv.background.rate", lane, BudgetLane::bytesPerSecond).baseUnit("bytes.per.second")
                    .description("Bytes per second each kind of background work may use now: its share of the budget (0: no limit)")
                    .tag("work", work).strongReference(true).register(registry);
            Gauge.builder("kv.background.cap", lane, BudgetLane::capBytesPerSecond).baseUnit("bytes.per.second")
                    .description("Each kind of background work's own rate flag, above which its share never goes (0: none)")
                    .tag("work", work).strongReference(true).register(registry);
            FunctionCounter.builder("kv.background.consumed", lane, BudgetLane::consumedBytes).baseUnit("bytes")
                    .description("Bytes each kind of background work drew from the budget")
                    .tag("work", work).register(registry);
            Gauge.builder("kv.background.backlog", lane, l -> l.backlogBytes() < 0 ? Double.NaN : l.backlogBytes())
                    .baseUnit("bytes")
                    .description("Bytes of work waiting for each kind of background work, where known: the compaction due,"
                            + " hints waiting, what a stream has yet to scan")
                    .tag("work", work).strongReference(true).register(registry);
        }
    }
}
