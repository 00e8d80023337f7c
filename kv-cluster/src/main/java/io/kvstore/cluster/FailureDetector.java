package io.kvstore.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tracks whether each node answers: every reply of a replica counts (the coordinator reports each
 * answer and each failure, timeouts included), and a light periodic {@link Replica#ping() probe} covers
 * nodes this one has no traffic for. A node is {@link PeerState#DOWN down} after
 * {@link #FAILURES_TO_DOWN} failures in a row, and {@link PeerState#UP up} again at its first answer.
 * Each change of state is logged once and announced to the listeners (hint replay starts on one).
 * A node that is stopping says so first ({@link #draining}): it is down at once, and stays down, whatever
 * answers still arrive from it, until a probe finds it serving again (a draining node fails its probes).
 *
 * <p>The node itself is always up. Reporting an answer costs a volatile read and, at most once per
 * millisecond, a store: it is on every request's path. Probes run on the JDK's shared delay scheduler
 * (no thread of its own) and never block it. Thread-safe.
 */
public final class FailureDetector implements AutoCloseable {
    /** Failures in a row, of requests or probes, after which a node is judged down. */
    public static final int FAILURES_TO_DOWN = 3;

    private static final Logger LOG = LoggerFactory.getLogger(FailureDetector.class);

    private final List<String> nodes;
    private final List<Replica> replicas;
    private final int self;
    private final LongSupplier wallMillis;
    private final Executor probeLater;
    private final AtomicIntegerArray failuresInARow;
    private final AtomicLongArray lastSeenMillis;
    /** 0 while up, else when the node was judged down (wall-clock milliseconds). */
    private final AtomicLongArray downSinceMillis;
    /** 1 while the node is draining: down until a probe succeeds. */
    private final AtomicIntegerArray draining;
    private final List<IntConsumer> upListeners = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * @param nodes     every node of the cluster, in placement order
     * @param replicas  the replica for each node, in the same order; pinged by the probe
     * @param self      the index of this node, or -1 if it is none of them
     * @param probeInterval how often each other node is pinged
     */
    public FailureDetector(List<String> nodes, List<Replica> replicas, int self, Duration probeInterval,
                           LongSupplier wallMillis) {
        this.nodes = List.copyOf(nodes);
        this.replicas = List.copyOf(replicas);
        if (this.nodes.size() != this.replicas.size()) {
            throw new IllegalArgumentException("got " + replicas.size() + " replicas for " + nodes.size() + " nodes");
        }
        if (probeInterval.isNegative() || probeInterval.isZero()) {
            throw new IllegalArgumentException("probe interval must be positive, got " + probeInterval);
        }
        this.self = self;
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
        this.probeLater = CompletableFuture.delayedExecutor(probeInterval.toNanos(), TimeUnit.NANOSECONDS, Runnable::run);
        this.failuresInARow = new AtomicIntegerArray(nodes.size());
        this.lastSeenMillis = new AtomicLongArray(nodes.size());
        this.downSinceMillis = new AtomicLongArray(nodes.size());
        this.draining = new AtomicIntegerArray(nodes.size());
    }

    /** Starts the periodic probes; {@link #close()} stops them. */
    public FailureDetector start() {
        probeLater.execute(this::probe);
        return this;
    }

    /** Calls {@code listener} with a node's index each time it comes back up (on the reporting thread). */
    public void onUp(IntConsumer listener) {
        upListeners.add(listener);
    }

    /** Node {@code node} answered a request or a probe. */
    public void answered(int node) {
        long now = wallMillis.getAsLong();
        if (lastSeenMillis.get(node) != now) {
            lastSeenMillis.lazySet(node, now);
        }
        if (failuresInARow.get(node) != 0) {
            failuresInARow.set(node, 0);
        }
        // A draining node still answers what was sent before it said so; only a probe brings it back.
        if (downSinceMillis.get(node) != 0 && draining.get(node) == 0) {
            long since = downSinceMillis.getAndSet(node, 0);
            if (since != 0) {
                LOG.info("peer {} is up again after {} ms down", nodes.get(node), now - since);
                for (IntConsumer listener : upListeners) {
                    listener.accept(node);
                }
            }
        }
    }

    /** Node {@code node} failed to answer a request or a probe: an error or a timeout. */
    public void failed(int node, Throwable cause) {
        // A closed detector judges no one: the failures of a node that stops are its own, not its peers'.
        if (node == self || closed) {
            return;
        }
        int failures = failuresInARow.incrementAndGet(node);
        if (failures >= FAILURES_TO_DOWN && downSinceMillis.get(node) == 0
                && downSinceMillis.compareAndSet(node, 0, wallMillis.getAsLong())) {
            LOG.warn("peer {} is down after {} failures in a row; last: {}", nodes.get(node), failures, String.valueOf(cause));
        }
    }

    /**
     * Node {@code node} said it is stopping: it is {@link PeerState#DRAINING} from now until a probe finds
     * it serving again, so that coordinators neither wait for it nor send it requests (its writes are
     * hinted) while it finishes what it holds, stops and restarts. Ignored for this node itself.
     */
    public void draining(int node) {
        if (node == self || closed) {
            return;
        }
        draining.set(node, 1);
        if (downSinceMillis.compareAndSet(node, 0, Math.max(1, wallMillis.getAsLong()))) {
            LOG.info("peer {} is draining: requests go to its other replicas until it serves again", nodes.get(node));
        }
    }

    /**
     * Node {@code node} said it serves (again), having restarted: it is up at once, as after a probe it
     * answered, rather than at the next probe.
     */
    public void serving(int node) {
        if (node == self || closed) {
            return;
        }
        draining.set(node, 0);
        answered(node);
    }

    /** Whether node {@code node} is draining: coordinators leave it out. A volatile read, for the request path. */
    public boolean isDraining(int node) {
        return draining.get(node) != 0;
    }

    /** The state of node {@code node}. */
    public PeerState state(int node) {
        if (downSinceMillis.get(node) == 0) {
            return PeerState.UP;
        }
        return draining.get(node) != 0 ? PeerState.DRAINING : PeerState.DOWN;
    }

    /** Wall-clock milliseconds since which node {@code node} is down, or 0 if it is up. */
    public long downSinceMillis(int node) {
        return downSinceMillis.get(node);
    }

    /** Wall-clock milliseconds of the last answer from node {@code node}, or 0 if none yet. */
    public long lastSeenMillis(int node) {
        return lastSeenMillis.get(node);
    }

    /** The nodes watched, in placement order. */
    public List<String> nodes() {
        return nodes;
    }

    /** The index of this node among {@link #nodes()}, or -1. */
    public int self() {
        return self;
    }

    /** Stops the probes; failures reported from now on are ignored. Idempotent. */
    @Override
    public void close() {
        closed = true;
    }

    /** One round: pings every other node, then schedules the next round. */
    private void probe() {
        if (closed) {
            return;
        }
        for (int node = 0; node < replicas.size(); node++) {
            if (node == self) {
                continue;
            }
            int target = node;
            boolean sentWhileDraining = draining.get(target) != 0;
            CompletionStage<Void> ping;
            try {
                ping = replicas.get(node).ping();
            } catch (RuntimeException e) {
                failed(target, e);
                continue;
            }
            ping.whenComplete((ok, error) -> {
                if (error == null) {
                    if (!sentWhileDraining && draining.get(target) != 0) {
                        return; // answered before the node said it drains: not a sign it is back
                    }
                    draining.set(target, 0);
                    answered(target);
                } else {
                    failed(target, error);
                }
            });
        }
        probeLater.execute(this::probe);
    }
}
