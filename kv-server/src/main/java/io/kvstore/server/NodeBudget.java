package io.kvstore.server;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetController;
import io.kvstore.core.background.BudgetLane;
import io.kvstore.server.config.BackgroundBudgetMode;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.http.RequestWindow;
import io.vertx.core.Vertx;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's one background budget, made before its store opens: a lane per kind of background work,
 * each capped at that kind's own rate flag, and under {@link BackgroundBudgetMode#ADAPTIVE} a
 * {@link BudgetController} that a Vert.x timer ticks with what the node's {@link RequestWindow} saw.
 */
final class NodeBudget {
    private final BackgroundBudget budget;
    private final Map<BackgroundWork, BudgetLane> lanes = new EnumMap<>(BackgroundWork.class);
    private volatile BudgetController controller;

    private NodeBudget(BackgroundBudget budget) {
        this.budget = budget;
    }

    /** The budget {@code config} asks for, with a lane per kind of work at its own rate. */
    static NodeBudget of(KvServerConfig config) {
        NodeBudget node = new NodeBudget(config.backgroundBudget() == BackgroundBudgetMode.ADAPTIVE
                ? BackgroundBudget.adaptive(config.backgroundBudgetMinBytesPerSecond())
                : BackgroundBudget.fixed());
        node.lane(BackgroundWork.COMPACTION, config.storeOptions().compactionBytesPerSecond());
        node.lane(BackgroundWork.STREAM, config.streamBytesPerSecond());
        node.lane(BackgroundWork.HINTS, config.replication().hintReplayBytesPerSecond());
        node.lane(BackgroundWork.REPAIR, config.repairScanBytesPerSecond());
        // Scrubs keep their own rate (the background pass's, or the admin route's) below their share.
        node.lane(BackgroundWork.SCRUB, 0);
        return node;
    }

    private void lane(BackgroundWork work, long capBytesPerSecond) {
        lanes.put(work, budget.lane(work, capBytesPerSecond));
    }

    BackgroundBudget budget() {
        return budget;
    }

    BudgetLane lane(BackgroundWork work) {
        return lanes.get(work);
    }

    /** The store's options with this budget for its compactions and scrubs. */
    DaoOptions storeOptions(DaoOptions options) {
        return options.toBuilder().backgroundBudget(budget).build();
    }

    /**
     * Starts the controller of an adaptive budget on {@code vertx}'s timer, reading {@code inFlight}
     * and the latency the returned window records; the timer goes with {@code vertx}.
     */
    RequestWindow start(Vertx vertx, AtomicInteger inFlight) {
        RequestWindow window = new RequestWindow(inFlight::get);
        if (budget.adaptive()) {
            BudgetController started = new BudgetController(budget, window);
            controller = started;
            vertx.setPeriodic(TimeUnit.NANOSECONDS.toMillis(BudgetController.TICK_NANOS), id -> started.tick());
        }
        return window;
    }

    /** The controller of an adaptive budget once started; null otherwise. */
    BudgetController controller() {
        return controller;
    }
}
