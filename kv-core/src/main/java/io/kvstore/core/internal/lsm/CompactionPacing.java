package io.kvstore.core.internal.lsm;

import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * How fast compactions may write: at most {@link io.kvstore.core.DaoOptions#compactionBytesPerSecond()}
 * while the store keeps up, without limit while it is behind. A compaction that sleeps between short
 * stretches of work leaves its core idle often enough for the scheduler to run a request thread there,
 * which a compaction running flat out does not (docs/TUNING.md, compaction rate); but a limit below
 * what the writes need must not make level 0 grow into the writers' slowdown, so past
 * {@link #BEHIND_FACTOR} compaction triggers of flushed level-0 tables it is lifted until level 0 is
 * back under them.
 */
final class CompactionPacing {
    /** Flushed level-0 tables, in compaction triggers, from which compactions run unlimited; below the slowdown. */
    static final int BEHIND_FACTOR = 2;

    private final ByteRateLimiter limiter;
    private final BooleanSupplier behind;

    /** Paces by {@code limiter} unless {@code behind} says the store is behind. */
    CompactionPacing(ByteRateLimiter limiter, BooleanSupplier behind) {
        this.limiter = limiter;
        this.behind = behind;
    }

    /**
     * Pacing at {@code bytesPerSecond} for a store whose flushed level-0 table count {@code levelZero}
     * gives, with {@code trigger} tables per level-0 compaction; null (no pacing) for a rate of 0.
     */
    static CompactionPacing of(long bytesPerSecond, int trigger, IntSupplier levelZero) {
        if (bytesPerSecond <= 0) {
            return null;
        }
        long behindAt = (long) BEHIND_FACTOR * trigger;
        return new CompactionPacing(new ByteRateLimiter(bytesPerSecond), () -> levelZero.getAsInt() >= behindAt);
    }

    /**
     * Charges {@code bytes} just written, waiting as long as the rate requires unless the store is
     * behind; returns false if it stopped waiting because {@code cancelled} said so.
     */
    boolean charge(long bytes, BooleanSupplier cancelled) {
        if (behind.getAsBoolean()) {
            return true;
        }
        // A wait ends early once the store falls behind: the compaction then goes on at full speed.
        return limiter.acquire(bytes, () -> cancelled.getAsBoolean() || behind.getAsBoolean()) || !cancelled.getAsBoolean();
    }
}
