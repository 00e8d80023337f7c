package io.kvstore.cluster.internal;

/**
 * How many bytes of hints one replay period sends to one node, set by that node's answers rather than
 * by a fixed rate: a returning node is also serving its clients and its coordinators' writes, and hints
 * sent faster than it answers only queue in front of those. Additive increase, multiplicative decrease,
 * as TCP does with a congestion window: while batches come back well within {@link #targetNanos()} the
 * batch grows (doubling at first, then by an eighth of the cap per batch); a batch that comes back late,
 * or a failure (a timeout, a 503 of a node shedding load), halves it. The configured replay rate stays
 * the cap, and one hint per period the floor, so replay always progresses.
 *
 * <p>The target is three times the fastest answer of the last {@link #WINDOW} to {@code 2 * WINDOW}
 * batches (its queue is then short), and never below {@link #MIN_TARGET_NANOS}: on an idle node a batch
 * answers in well under a millisecond, and a batch must be free to take some milliseconds of the node's
 * time, nor above {@link #MAX_TARGET_NANOS}, a replay period. Only a window's minimum is kept, so a node that got slower for good is judged against its new
 * speed after a window or two, never against its best moment forever. Not thread-safe: one replay of a
 * node at a time.
 */
final class ReplayPace {
    /** The least target: a batch answered within it is never a sign of a queue. */
    static final long MIN_TARGET_NANOS = 20_000_000;
    /** The most a batch may take, whatever the node's usual speed: past a replay period, batches queue. */
    static final long MAX_TARGET_NANOS = 100_000_000;
    /** How many times the fastest recent answer a batch may take before the pace backs off. */
    static final int TARGET_FACTOR = 3;
    /** Batches per window of the fastest answer. */
    static final int WINDOW = 64;

    private final long capBytes;
    /** Read by status pages from other threads; written by the one replay. */
    private volatile long batchBytes;
    private boolean slowStart = true;
    private long fastestThisWindow = Long.MAX_VALUE;
    private long fastestLastWindow = Long.MAX_VALUE;
    private int batchesThisWindow;

    /** {@code capBytes}: the most one period may send (the configured rate times the period), at least 1. */
    ReplayPace(long capBytes) {
        if (capBytes < 1) {
            throw new IllegalArgumentException("cap must be >= 1 byte, got " + capBytes);
        }
        this.capBytes = capBytes;
        this.batchBytes = Math.max(1, capBytes / 64);
    }

    /** The bytes the next batch may carry (the store hands at least one hint whatever it says). */
    long batchBytes() {
        return batchBytes;
    }

    /** How long a batch may take before the pace backs off. */
    long targetNanos() {
        long fastest = Math.min(fastestThisWindow, fastestLastWindow);
        if (fastest == Long.MAX_VALUE) {
            return MIN_TARGET_NANOS;
        }
        return Math.min(MAX_TARGET_NANOS, Math.max(MIN_TARGET_NANOS, TARGET_FACTOR * Math.min(fastest, MAX_TARGET_NANOS)));
    }

    /**
     * A batch of {@code bytes} was answered in full after {@code nanos}, every hint delivered ({@code ok})
     * or not ({@code !ok}: a failure, a timeout or a refusal to take more).
     */
    void answered(long bytes, long nanos, boolean ok) {
        if (!ok || nanos > targetNanos()) {
            batchBytes = Math.max(1, batchBytes / 2);
            slowStart = false;
        } else if (bytes >= batchBytes / 2) {
            // Only a batch that used its allowance says the allowance can grow: a short one (few hints left) does not.
            batchBytes = Math.min(capBytes, slowStart ? batchBytes * 2 : batchBytes + Math.max(1, capBytes / 8));
        }
        if (ok) {
            fastestThisWindow = Math.min(fastestThisWindow, nanos);
        }
        if (++batchesThisWindow == WINDOW) {
            fastestLastWindow = fastestThisWindow;
            fastestThisWindow = Long.MAX_VALUE;
            batchesThisWindow = 0;
        }
    }
}
