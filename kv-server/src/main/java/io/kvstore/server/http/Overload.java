package io.kvstore.server.http;

import io.kvstore.server.wire.Responses;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whether this node can take more point requests in time, and the requests it refused because it could
 * not. Requests queue in two places a node sees: its event loops (a loop busy with a backlog runs each
 * task late) and its storage threads' queue. Both report how long work waited ({@link #waited}); as in
 * CoDel, a queue is standing, not a burst, when even the shortest wait of an interval exceeds the
 * target. While one stands, new point requests are refused at once with 503 + Retry-After rather than
 * queued behind it to time out: answering a refusal costs little, so the backlog drains, the waits
 * fall below the target and requests are taken again.
 *
 * <p>The target is a quarter of the replica timeout: a request admitted behind a standing queue of that
 * length still has most of its time for its replicas, and a node merely short of CPU for a moment (a
 * shared machine, a collection) is not taken for one that cannot keep up. Thread-safe; reporting a wait
 * is a few atomic operations.
 */
public final class Overload {
    /** How long a wait must stand (every wait of an interval, two at least, over the target) before requests are refused. */
    static final long INTERVAL_NANOS = 100_000_000L;

    /** Why a request was refused; the metric's {@code reason} label is the lower-case name. */
    public enum Reason {
        /** More requests in flight than {@code --max-in-flight}. */
        IN_FLIGHT,
        /** A standing queue on an event loop or the storage threads. */
        QUEUE,
        /** Its body did not fit the node's body memory budget. */
        BODY_MEMORY,
        /** The storage threads' queue refused it: its oldest task waited past the target. */
        STORAGE_QUEUE,
        /** A coordinated request whose replicas (this node's storage or peers) refused it as overloaded. */
        REPLICAS;

        /** The metric label. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final long targetNanos;
    private final LongAdder[] refused = new LongAdder[Reason.values().length];
    /** When the current interval started, and the shortest wait reported in it (Long.MAX_VALUE: none yet). */
    private final AtomicLong intervalStart = new AtomicLong(System.nanoTime());
    private final AtomicLong shortest = new AtomicLong(Long.MAX_VALUE);
    private final AtomicInteger reports = new AtomicInteger();
    private volatile boolean standing;
    /** When the last interval with a report ended; a queue reports nothing when idle. */
    private volatile long decidedAt = System.nanoTime();

    /** A node whose requests wait at most {@code replicaTimeout} for their replicas. */
    public Overload(Duration replicaTimeout) {
        this.targetNanos = Math.max(5_000_000L, replicaTimeout.toNanos() / 4);
        for (int i = 0; i < refused.length; i++) {
            refused[i] = new LongAdder();
        }
    }

    /** The longest wait of a standing queue before new requests are refused. */
    public long targetNanos() {
        return targetNanos;
    }

    /** Work waited {@code nanos} in a queue before it ran (or, for the oldest queued task, so far). */
    public void waited(long nanos) {
        long now = System.nanoTime();
        shortest.accumulateAndGet(nanos, Math::min);
        long started = intervalStart.get();
        // Two reports at least: the one report after a pause (a GC, a descheduled process) is no standing queue.
        if (reports.incrementAndGet() >= 2 && now - started >= INTERVAL_NANOS && intervalStart.compareAndSet(started, now)) {
            reports.set(0);
            long min = shortest.getAndSet(Long.MAX_VALUE);
            standing = min != Long.MAX_VALUE && min > targetNanos;
            decidedAt = now;
        }
    }

    /**
     * Whether a queue stands: new point requests are to be refused. A decision not renewed for two
     * intervals lapses, so that a node whose queues went quiet takes requests again.
     */
    public boolean overloaded() {
        return standing && System.nanoTime() - decidedAt < 2 * INTERVAL_NANOS;
    }

    /** Counts a refusal for {@code reason}. */
    public void refused(Reason reason) {
        refused[reason.ordinal()].increment();
    }

    /** Requests refused for {@code reason} since the node started. */
    public long refusedCount(Reason reason) {
        return refused[reason.ordinal()].sum();
    }

    /** Answers 503 + Retry-After at once and counts it; the connection stays open. */
    void refuse(HttpServerRequest request, Reason reason, String why) {
        refused(reason);
        request.response().setStatusCode(503).putHeader("Retry-After", Responses.RETRY_AFTER_SECONDS).end(why + "\n");
    }
}
