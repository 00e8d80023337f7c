package io.kvstore.cluster;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hybrid logical clock (Kulkarni et al., 2014) that stamps every write of this node.
 *
 * <p>A timestamp is 64 bits: the high 48 bits are wall-clock milliseconds since the epoch (enough
 * until the year 10889), the low 16 bits a logical counter. {@link #now()} returns a value greater
 * than every value it returned or {@linkplain #observe observed} before, and equal to the wall clock
 * (shifted) whenever the wall clock is ahead; so timestamps stay unique and increasing when the wall
 * clock steps back, and track wall-clock milliseconds otherwise. More than 65,536 writes in one
 * millisecond simply borrow from the millisecond field, staying unique.
 */
public final class HybridClock {
    private static final int LOGICAL_BITS = 16;

    private final LongSupplier wallMillis;
    private final AtomicLong last = new AtomicLong();

    /** A clock on {@link System#currentTimeMillis()}. */
    public HybridClock() {
        this(System::currentTimeMillis);
    }

    /** A clock on the given wall clock (tests use a fake one). */
    public HybridClock(LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
    }

    /** A new timestamp, unique and strictly greater than every earlier result of this clock. */
    public long now() {
        long wall = wallMillis.getAsLong() << LOGICAL_BITS;
        return last.accumulateAndGet(wall, (previous, w) -> Math.max(previous + 1, w));
    }

    /** Moves this clock past a timestamp seen from another node, so later writes here order after it. */
    public void observe(long remoteTimestamp) {
        last.accumulateAndGet(remoteTimestamp, Math::max);
    }

    /** The wall-clock milliseconds part of a timestamp. */
    public static long millisOf(long timestamp) {
        return timestamp >>> LOGICAL_BITS;
    }
}
