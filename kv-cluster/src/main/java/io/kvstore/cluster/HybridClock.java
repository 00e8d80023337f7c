package io.kvstore.cluster;

import java.io.UncheckedIOException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>With a {@link ClockLease} the guarantees hold across restarts: the clock starts above the lease's
 * bound, and before it issues or absorbs a timestamp at or past the bound, it makes a bound
 * {@link #LEASE_MILLIS} further durable. That costs one small synced file write per half lease period,
 * none per timestamp; it is made in the background once timestamps pass the lease's middle, so that
 * the caller of {@link #now()} (an event loop) waits for it only if the background write fell behind.
 */
public final class HybridClock {
    private static final Logger LOG = LoggerFactory.getLogger(HybridClock.class);
    /** Bits of the logical counter below the milliseconds. */
    public static final int LOGICAL_BITS = 16;
    /** How far past this node's wall clock a timestamp from elsewhere may be, in milliseconds. */
    public static final long MAX_AHEAD_MILLIS = 60_000;

    /** How far past the timestamps in use a {@link ClockLease} is extended each time, in milliseconds. */
    public static final long LEASE_MILLIS = 10_000;

    private final LongSupplier wallMillis;
    private final AtomicLong last;
    /** Null for a clock that does not outlive its process. */
    private final ClockLease lease;
    /** Whether a background extension of the lease is under way. */
    private final AtomicBoolean extending = new AtomicBoolean();
    /**
     * The highest timestamp observed past a lease that could not be extended then: not absorbed into
     * {@link #last}, but every later {@link #now()} is above it, and must extend the lease first.
     */
    private final AtomicLong unleased = new AtomicLong(Long.MIN_VALUE);

    /** A clock over {@link System#currentTimeMillis()}. */
    public HybridClock() {
        this(System::currentTimeMillis);
    }

    /** A clock over the given wall clock in milliseconds since the epoch (tests pass a fake one). */
    public HybridClock(LongSupplier wallMillis) {
        this(wallMillis, null);
    }

    /**
     * A clock that starts above {@code lease}'s bound and keeps it ahead of every timestamp it issues or
     * absorbs; {@code null} for a clock that does not outlive its process.
     */
    public HybridClock(LongSupplier wallMillis, ClockLease lease) {
        this.wallMillis = wallMillis;
        this.lease = lease;
        this.last = new AtomicLong(lease == null ? Long.MIN_VALUE : lease.bound());
    }

    /**
     * A new timestamp: greater than every timestamp this clock issued or observed before.
     *
     * @throws UncheckedIOException if the timestamp is past the lease and the lease cannot be extended
     *                              (its cause an {@link io.kvstore.core.InsufficientStorageException} on
     *                              a full disk): a write must then be refused, and the next call tries again
     */
    public long now() {
        long physical = wallMillis.getAsLong() << LOGICAL_BITS;
        while (true) {
            long previous = last.get();
            long next = Math.max(physical, Math.max(previous, unleased.get()) + 1);
            holdLeaseAbove(next);
            if (last.compareAndSet(previous, next)) {
                return next;
            }
        }
    }

    /**
     * Makes later {@link #now()} results exceed {@code remoteTimestamp}, e.g. one read from a replica; a
     * timestamp this clock does not {@linkplain #accepts accept} moves it only as far as the bound. Never
     * fails, so that reads go on when the lease cannot be extended (a full disk): the timestamp is then
     * held aside, and {@link #now()} refuses to issue one above it until the lease covers it.
     */
    public void observe(long remoteTimestamp) {
        long absorbed = Math.min(remoteTimestamp, latestAccepted());
        if (absorbed > last.get()) {
            try {
                holdLeaseAbove(absorbed);
            } catch (UncheckedIOException e) {
                unleased.accumulateAndGet(absorbed, Math::max);
                return;
            }
            last.accumulateAndGet(absorbed, Math::max);
        }
    }

    /** The highest timestamp issued or observed so far. */
    public long latest() {
        return Math.max(last.get(), unleased.get());
    }

    private void holdLeaseAbove(long timestamp) {
        if (lease == null) {
            return;
        }
        long bound = lease.bound();
        if (timestamp >= bound) {
            lease.extendTo(timestamp + (LEASE_MILLIS << LOGICAL_BITS));
        } else if (timestamp >= bound - (LEASE_MILLIS << (LOGICAL_BITS - 1)) && extending.compareAndSet(false, true)) {
            ForkJoinPool.commonPool().execute(() -> {
                try {
                    lease.extendTo(timestamp + (LEASE_MILLIS << LOGICAL_BITS));
                } catch (UncheckedIOException e) {
                    LOG.warn("cannot extend {} ahead of time; the next timestamp past it will try again", lease, e);
                } finally {
                    extending.set(false);
                }
            });
        }
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
