package io.kvstore.core.internal.lsm;

import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetLane;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * How fast compactions may write: at most {@link io.kvstore.core.DaoOptions#compactionBytesPerSecond()},
 * or their share of the {@link io.kvstore.core.DaoOptions#backgroundBudget()} (never above that rate if
 * it is set), while the store keeps up; without limit while it is behind. A compaction that sleeps
 * between short stretches of work leaves its core idle often enough for the scheduler to run a request
 * thread there, which a compaction running flat out does not (docs/TUNING.md, compaction rate); but a
 * limit below what the writes need must not make level 0 grow into the writers' slowdown, so past
 * {@link #BEHIND_FACTOR} compaction triggers of flushed level-0 tables it is lifted until level 0 is
 * back under them: level 0 into the base level comes before anything else.
 */
final class CompactionPacing {
    /** Flushed level-0 tables, in compaction triggers, from which compactions run unlimited; below the slowdown. */
    static final int BEHIND_FACTOR = 2;

    private final BudgetLane lane;
    private final BooleanSupplier behind;

    /** Paces by {@code lane} unless {@code behind} says the store is behind. */
    CompactionPacing(BudgetLane lane, BooleanSupplier behind) {
        this.lane = lane;
        this.behind = behind;
    }

    /**
     * Pacing at {@code bytesPerSecond} for a store whose flushed level-0 table count {@code levelZero}
     * gives, with {@code trigger} tables per level-0 compaction; null (no pacing) for a rate of 0.
     */
    static CompactionPacing of(long bytesPerSecond, int trigger, IntSupplier levelZero) {
        return of(null, bytesPerSecond, trigger, levelZero);
    }

    /**
     * {@link #of(long, int, IntSupplier)}, drawing from {@code budget} (capped at {@code bytesPerSecond}
     * unless it is 0) if there is one; null (no pacing) without a budget and for a rate of 0.
     */
    static CompactionPacing of(BackgroundBudget budget, long bytesPerSecond, int trigger, IntSupplier levelZero) {
        if (budget == null && bytesPerSecond <= 0) {
            return null;
        }
        BackgroundBudget from = budget == null ? BackgroundBudget.fixed() : budget;
        long behindAt = (long) BEHIND_FACTOR * trigger;
        return new CompactionPacing(from.lane(BackgroundWork.COMPACTION, bytesPerSecond),
                () -> levelZero.getAsInt() >= behindAt);
    }

    /** The lane compactions draw from. */
    BudgetLane lane() {
        return lane;
    }

    /**
     * Charges {@code bytes} just written, waiting as long as the rate requires unless the store is
     * behind; returns false if it stopped waiting because {@code cancelled} said so.
     */
    boolean charge(long bytes, BooleanSupplier cancelled) {
        if (behind.getAsBoolean()) {
            lane.consumed(bytes);
            return true;
        }
        // A wait ends early once the store falls behind: the compaction then goes on at full speed.
        return lane.acquire(bytes, () -> cancelled.getAsBoolean() || behind.getAsBoolean()) || !cancelled.getAsBoolean();
    }
}
