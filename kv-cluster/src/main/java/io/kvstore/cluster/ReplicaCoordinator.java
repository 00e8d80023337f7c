package io.kvstore.cluster;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coordinates one request across the replicas of a key: sends it to the first {@code from} replicas of
 * {@link Partitioner#replicas(byte[], int)} in parallel and decides on the first {@code ack} answers.
 *
 * <ul>
 *   <li>Completes as soon as {@code ack} replicas succeeded: a slow or dead replica does not delay a
 *       request that already has its answers.</li>
 *   <li>Fails with {@link NotEnoughReplicasException} as soon as more than {@code from - ack} replicas
 *       failed, or when the per-request timeout passes first.</li>
 *   <li>Reads return the newest of the first {@code ack} answers by timestamp ({@code null} when none
 *       of them holds the key). A tombstone is returned as such: the caller treats it as absent.
 *       Equal timestamps prefer a tombstone, then the greater value, so every coordinator picks the
 *       same version.</li>
 *   <li>Writes take their timestamp from the {@link HybridClock}; every timestamp read from a replica
 *       is {@linkplain HybridClock#observe(long) observed}, so a later write of this node supersedes it.</li>
 * </ul>
 *
 * <p>No thread blocks: each replica answers through its {@link CompletionStage}, and timeouts are
 * swept on the JDK's shared delay scheduler (a request fails at most one sweep period, 5% of the
 * timeout within 1 to 20 ms, after its deadline). The returned stage completes on the thread of the
 * answer that decided it (or on that scheduler's thread for a timeout), so callers with thread
 * affinity, such as an event loop, should hop back to their own context. Thread-safe.
 */
public final class ReplicaCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaCoordinator.class);

    private final Partitioner partitioner;
    private final List<Replica> replicas;
    private final HybridClock clock;
    private final long timeoutNanos;
    private final RoundDeadlines deadlines;
    private volatile boolean closed;

    /**
     * @param replicasByNodeIndex the replica for each node, in the order of {@code partitioner.nodes()}
     * @param timeout             how long a request may wait for its {@code ack} answers
     */
    public ReplicaCoordinator(Partitioner partitioner, List<Replica> replicasByNodeIndex, HybridClock clock,
                              Duration timeout) {
        this.partitioner = Objects.requireNonNull(partitioner, "partitioner");
        this.replicas = List.copyOf(replicasByNodeIndex);
        this.clock = Objects.requireNonNull(clock, "clock");
        if (replicas.size() != partitioner.nodes().size()) {
            throw new IllegalArgumentException("got " + replicas.size() + " replicas for "
                    + partitioner.nodes().size() + " nodes " + partitioner.nodes());
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
        this.deadlines = new RoundDeadlines(timeoutNanos);
    }

    /** The newest version among the first {@code ack} answers, possibly a tombstone, or {@code null}. */
    public CompletionStage<Entry> get(byte[] key, Quorum quorum) {
        return fanOut("GET", key, quorum, ReplicaCoordinator::newer, replica -> replica.get(key));
    }

    /** Stores {@code value} on {@code from} replicas; completes once {@code ack} of them stored it. */
    public CompletionStage<Void> put(byte[] key, byte[] value, Quorum quorum) {
        Entry entry = Entry.value(key, value, clock.now());
        return fanOut("PUT", key, quorum, (a, b) -> null, replica -> replica.upsert(entry));
    }

    /** Stores a tombstone on {@code from} replicas; completes once {@code ack} of them stored it. */
    public CompletionStage<Void> delete(byte[] key, Quorum quorum) {
        long timestamp = clock.now();
        return fanOut("DELETE", key, quorum, (a, b) -> null, replica -> replica.delete(key, timestamp));
    }

    /** The partitioner placing keys for this coordinator. */
    public Partitioner partitioner() {
        return partitioner;
    }

    /** The number of nodes: the upper bound of {@code from}. */
    public int clusterSize() {
        return replicas.size();
    }

    /**
     * Stops taking requests: later calls return a stage failed with {@link IllegalStateException}.
     * Requests in flight still complete through their replicas or their timeout. Holds no threads of
     * its own, so there is nothing else to release. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
    }

    private <T> CompletionStage<T> fanOut(String method, byte[] key, Quorum quorum, BinaryOperator<T> merge,
                                          Function<Replica, CompletionStage<T>> call) {
        if (quorum.from() > replicas.size()) {
            throw new InvalidQuorumException("from=" + quorum.from() + " exceeds the cluster size " + replicas.size());
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException(method + " key '"
                    + Bytes.toDebugString(key) + "': the coordinator is closed"));
        }
        int[] targets = partitioner.replicas(key, quorum.from());
        QuorumRound<T> round = new QuorumRound<>(method, key, quorum.ack(), quorum.from(), merge, timeoutNanos);
        for (int target : targets) {
            String node = partitioner.nodes().get(target);
            CompletionStage<T> answer;
            try {
                answer = call.apply(replicas.get(target));
            } catch (RuntimeException e) {
                // A replica must fail through its stage; one that throws still counts as one failure.
                round.onFailure(node, e);
                continue;
            }
            answer.whenComplete((value, error) -> {
                if (error == null) {
                    if (value instanceof Entry) {
                        // Every version read, even one that loses the merge, moves this clock past it.
                        clock.observe(((Entry) value).timestamp());
                    }
                    round.onSuccess(value);
                } else {
                    Throwable cause = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    if (LOG.isDebugEnabled()) {
                        LOG.debug("{} of key '{}' failed on {}", method, Bytes.toDebugString(key), node, cause);
                    }
                    round.onFailure(node, cause);
                }
            });
        }
        if (round.allSent()) {
            deadlines.watch(round);
        }
        return round.result();
    }

    /** The newer of two answers; {@code null} (absent) loses to any version. */
    static Entry newer(Entry a, Entry b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.timestamp() != b.timestamp()) {
            return a.timestamp() > b.timestamp() ? a : b;
        }
        if (a.isTombstone() || b.isTombstone()) {
            return a.isTombstone() ? a : b;
        }
        return Bytes.compare(a.value(), b.value()) >= 0 ? a : b;
    }
}
