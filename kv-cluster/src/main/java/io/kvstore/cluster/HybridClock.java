package io.kvstore.cluster;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hybrid logical clock (Kulkarni et al., 2014) giving every write of this node its timestamp.
 *
 * <p>Layout of a timestamp, as a signed {@code long} that orders like the time it stands for:
 * <pre>
 *   bit 63 ........... 16 | 15 ........ 0
 *   wall-clock millis (48) | logical (16)
 * </pre>
 * 48 bits of milliseconds since the epoch last until the year 10889; the logical counter tells apart
 * up to 65536 timestamps issued within one millisecond. If more are needed, or if a remote timestamp
 * is ahead, the counter carries into the millisecond field: the clock runs slightly ahead of the wall
 * clock until the wall clock catches up, and never goes backwards.
 *
 * <p>Guarantees: {@link #now()} is unique and strictly increasing across all threads of this node, even
 * when the wall clock steps back; it is never below {@code wallMillis << 16}; after
 * {@link #observe(long)} of a timestamp it {@linkplain #accepts accepts}, every {@link #now()} is greater
 * than that timestamp. Lock-free.
 *
 * <p>Observing is trusting, within a bound: a peer whose wall clock runs ahead drags this clock ahead
 * with it (and its writes win over later ones from nodes that have not heard from it), but by at most
 * {@link #MAX_AHEAD_MILLIS} past this node's wall clock. A timestamp further ahead is only absorbed up
 * to that bound, and {@link #accepts} tells a caller to refuse a write carrying one: a misconfigured
 * peer or a forged request must not pin a key or drag every later write of the node into the future
 * (at {@code Long.MAX_VALUE} the clock could not even move on). Keep the nodes' clocks synchronized
 * (NTP); the HLC only absorbs the small steps and skews that remain.
 */
public final class HybridClock {
    /** Bits of the logical counter below the milliseconds. */
    public static final int LOGICAL_BITS = 16;
    /** How far past this node's wall clock a timestamp from elsewhere may be, in milliseconds. */
    public static final long MAX_AHEAD_MILLIS = 60_000;

    private final LongSupplier wallMillis;
    private final AtomicLong last = new AtomicLong(Long.MIN_VALUE);

    /** A clock over {@link System#currentTimeMillis()}. */
    public HybridClock() {
        this(System::currentTimeMillis);
    }

    /** A clock over the given wall clock in milliseconds since the epoch (tests pass a fake one). */
    public HybridClock(LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
    }

    /** A new timestamp: greater than every timestamp this clock issued or observed before. */
    public long now() {
        long physical = wallMillis.getAsLong() << LOGICAL_BITS;
        while (true) {
            long previous = last.get();
            long next = Math.max(physical, previous + 1);
            if (last.compareAndSet(previous, next)) {
                return next;
            }
        }
    }

    /**
     * Makes later {@link #now()} results exceed {@code remoteTimestamp}, e.g. one read from a replica; a
     * timestamp this clock does not {@linkplain #accepts accept} moves it only as far as the bound.
     */
    public void observe(long remoteTimestamp) {
        last.accumulateAndGet(Math.min(remoteTimestamp, latestAccepted()), Math::max);
    }

    /**
     * Whether {@code remoteTimestamp} is at most {@link #MAX_AHEAD_MILLIS} past this node's wall clock:
     * a write carrying one further ahead should be refused.
     */
    public boolean accepts(long remoteTimestamp) {
        return remoteTimestamp <= latestAccepted();
    }

    private long latestAccepted() {
        return ((wallMillis.getAsLong() + MAX_AHEAD_MILLIS + 1) << LOGICAL_BITS) - 1;
    }

    /** The wall-clock milliseconds part of a timestamp. */
    public static long millisOf(long timestamp) {
        return timestamp >>> LOGICAL_BITS;
    }

    /** The logical counter part of a timestamp. */
    public static int logicalOf(long timestamp) {
        return (int) (timestamp & ((1L << LOGICAL_BITS) - 1));
    }
}
