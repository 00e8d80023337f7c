package io.kvstore.cluster;

import io.kvstore.core.Entry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs reads and writes against the replicas of a key: sends to the first {@code from} replicas that
 * the partitioner names, all in parallel, and completes as soon as {@code ack} of them answered, or
 * fails with {@link NotEnoughReplicasException} as soon as {@code ack} answers have become impossible
 * or the timeout passed. A slow or dead replica never delays a request that already has its answers,
 * and no thread blocks: answers are counted on whatever thread delivers them.
 *
 * <p>Writes are stamped by this node's {@link HybridClock}; reads return the newest version among the
 * answers (possibly a tombstone, which callers treat as absent), or {@code null} if none had the key.
 */
public final class ReplicaCoordinator implements AutoCloseable {
    private final Partitioner partitioner;
    private final List<Replica> replicas;
    private final HybridClock clock;
    private final long timeoutNanos;
    private final ScheduledThreadPoolExecutor timer;

    /**
     * @param replicasByNodeIndex one replica per node, in the order of {@code partitioner.nodes()}
     * @param timeout             the longest a request waits for its {@code ack} answers
     */
    public ReplicaCoordinator(Partitioner partitioner, List<Replica> replicasByNodeIndex, HybridClock clock,
            Duration timeout) {
        if (replicasByNodeIndex.size() != partitioner.nodes().size()) {
            throw new IllegalArgumentException("need one replica per node: " + partitioner.nodes().size()
                    + " nodes but " + replicasByNodeIndex.size() + " replicas");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        this.partitioner = partitioner;
        this.replicas = List.copyOf(replicasByNodeIndex);
        this.clock = clock;
        this.timeoutNanos = timeout.toNanos();
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "kv-coordinator-timeouts");
            thread.setDaemon(true);
            return thread;
        });
        this.timer.setRemoveOnCancelPolicy(true); // answered requests leave no timer task behind
    }

    /** The number of nodes, the upper bound of {@code from}. */
    public int clusterSize() {
        return replicas.size();
    }

    /** The newest version of {@code key} among {@code q.ack()} answers, a tombstone, or {@code null}. */
    public CompletionStage<Entry> get(byte[] key, Quorum q) {
        QuorumCall<Entry> call = start("GET", q);
        for (int node : partitioner.replicas(key, q.from())) {
            send(call, () -> replicas.get(node).get(key));
        }
        return armTimeout(call);
    }

    /** Stores {@code value} under {@code key} on {@code q.from()} replicas; completes after {@code q.ack()}. */
    public CompletionStage<Void> put(byte[] key, byte[] value, Quorum q) {
        return write("PUT", Entry.value(key, value, clock.now()), q);
    }

    /** Stores a tombstone for {@code key} on {@code q.from()} replicas; completes after {@code q.ack()}. */
    public CompletionStage<Void> delete(byte[] key, Quorum q) {
        return write("DELETE", Entry.tombstone(key, clock.now()), q);
    }

    private CompletionStage<Void> write(String operation, Entry entry, Quorum q) {
        QuorumCall<Void> call = start(operation, q);
        for (int node : partitioner.replicas(entry.key(), q.from())) {
            send(call, () -> replicas.get(node).upsert(entry));
        }
        return armTimeout(call);
    }

    /** A replica that throws instead of failing its stage counts as one failed answer, no more. */
    private static <T> void send(QuorumCall<?> call, Supplier<CompletionStage<T>> request) {
        CompletionStage<T> stage;
        try {
            stage = request.get();
        } catch (RuntimeException e) {
            call.onAnswer(null, e);
            return;
        }
        stage.whenComplete(call::onAnswer);
    }

    private <T> QuorumCall<T> start(String operation, Quorum q) {
        if (q.from() > replicas.size()) {
            throw new InvalidQuorumException("from must be in [1, " + replicas.size() + "], got " + q.from());
        }
        return new QuorumCall<>(operation, q.ack(), q.from());
    }

    /**
     * Starts the timeout clock, unless the answers are already in: a local replica that answers in
     * line (the single-node case) then costs no timer task at all.
     */
    private <T> CompletionStage<T> armTimeout(QuorumCall<T> call) {
        if (!call.result.isDone()) {
            call.setTimeout(timer.schedule(call::onTimeout, timeoutNanos, TimeUnit.NANOSECONDS));
        }
        return call.result;
    }

    /** Stops the timeout timer; requests still in flight then complete only through their replicas. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
