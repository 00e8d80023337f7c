package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BudgetController;
import io.kvstore.core.background.ForegroundSignal;

/** Options of stores that draw from a background budget held at its floor, as under a pressed foreground. */
final class BudgetedStores {
    /** High enough that the tests' small stores compact in well under a second a level. */
    static final long FLOOR_BYTES_PER_SECOND = 4 << 20;

    private BudgetedStores() {
    }

    /** {@code options} under leveled compaction with small tables, drawing from a budget at its floor. */
    static DaoOptions atTheFloor(DaoOptions options) {
        BackgroundBudget budget = BackgroundBudget.adaptive(FLOOR_BYTES_PER_SECOND);
        BudgetController controller = new BudgetController(budget, () -> new ForegroundSignal.Sample(100, 1_000_000, 100));
        for (int i = 0; i < 20; i++) {
            controller.tick();
        }
        return options.toBuilder().compactionStyle(CompactionStyle.LEVELED).targetTableBytes(16 << 10)
                .levelBaseBytes(64 << 10).compactionBytesPerSecond(64 << 20).backgroundBudget(budget).build();
    }
}
