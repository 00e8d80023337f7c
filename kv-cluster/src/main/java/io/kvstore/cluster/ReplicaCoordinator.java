package io.kvstore.cluster;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.LongFunction;
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
 *       Versions are ordered by the rule the engines use, {@link Entry#compareVersions} (timestamp,
 *       then tombstone, then bytes), so every coordinator and replica picks the same version.</li>
 *   <li>Writes take their timestamp from the {@link HybridClock}; every timestamp read from a replica
 *       is {@linkplain HybridClock#observe(long) observed}, so a later write of this node supersedes it.</li>
 *   <li>Built with {@link #builder}, it also keeps replicas converging: every answer and failure is
 *       reported to a {@link FailureDetector}; a write a replica does not acknowledge becomes a hint for
 *       the {@link HintSink} it is given; a read whose answers disagree is repaired as {@link ReadRepair} says.
 *       The default {@code from} is the replication factor RF.</li>
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
    private final int replicationFactor;
    private final ReadRepair readRepair;
    /** Versions read repair handed to replicas, for monitoring. */
    private final LongAdder readRepairs = new LongAdder();
    /** Null when failures are not tracked. */
    private final FailureDetector detector;
    /** Null when hinted handoff is off. */
    private final HintSink hints;
    /** Null: a write a replica refused as stale is not written again. */
    private final StaleWriteSink staleWrites;
    private volatile boolean closed;

    /**
     * A coordinator without read repair, failure detection or hints, with RF = the cluster size: each
     * request touches exactly its {@code from} replicas and nothing else.
     *
     * @param replicasByNodeIndex the replica for each node, in the order of {@code partitioner.nodes()}
     * @param timeout             how long a request may wait for its {@code ack} answers
     */
    public ReplicaCoordinator(Partitioner partitioner, List<Replica> replicasByNodeIndex, HybridClock clock,
                              Duration timeout) {
        this(builder(partitioner, replicasByNodeIndex, clock).timeout(timeout)
                .options(ReplicationOptions.builder().readRepair(ReadRepair.OFF).hints(false).build()));
    }

    /** The replica of each node, in placement order. */
    public List<Replica> replicas() {
        return replicas;
    }

    private ReplicaCoordinator(Builder b) {
        this.partitioner = Objects.requireNonNull(b.partitioner, "partitioner");
        this.replicas = List.copyOf(b.replicas);
        this.clock = Objects.requireNonNull(b.clock, "clock");
        if (replicas.size() != partitioner.nodes().size()) {
            throw new IllegalArgumentException("got " + replicas.size() + " replicas for "
                    + partitioner.nodes().size() + " nodes " + partitioner.nodes());
        }
        if (b.timeout.isNegative() || b.timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + b.timeout);
        }
        this.timeoutNanos = b.timeout.toNanos();
        this.deadlines = new RoundDeadlines(timeoutNanos);
        this.replicationFactor = b.options.replicationFactor(replicas.size());
        this.readRepair = b.options.readRepair();
        this.detector = b.detector;
        this.hints = b.options.hints() ? b.hints : null;
        this.staleWrites = b.staleWrites;
    }

    /** Starts a builder: read repair, failure detection, hinted handoff and RF are set there. */
    public static Builder builder(Partitioner partitioner, List<Replica> replicasByNodeIndex, HybridClock clock) {
        return new Builder(partitioner, replicasByNodeIndex, clock);
    }

    /**
     * The newest version among the first {@code ack} answers, possibly a tombstone, or {@code null}. With
     * read repair, answers that disagree are repaired (see {@link ReadRepair}).
     */
    public CompletionStage<Entry> get(byte[] key, Quorum quorum) {
        if (readRepair == ReadRepair.OFF || quorum.from() == 1) {
            return fanOut("GET", key, quorum, ReplicaCoordinator::newer, null, null, null, replica -> replica.get(key),
                    List.of(), List.of());
        }
        int[] targets = partitioner.replicas(key, quorum.from());
        ReadRepairRound repair = new ReadRepairRound(this, readRepair, targets, quorum.ack());
        return fanOut("GET", key, quorum, ReplicaCoordinator::newer, targets, repair, null, replica -> replica.get(key),
                        List.of(), List.of())
                .thenCompose(repair::decide);
    }

    /** Stores {@code value} on {@code from} replicas; completes once {@code ack} of them stored it. */
    public CompletionStage<Void> put(byte[] key, byte[] value, Quorum quorum) {
        return put(key, value, Entry.NEVER, quorum);
    }

    /**
     * Stores {@code value}, expiring at {@code expiresAtMillis} (milliseconds since the epoch, {@link Entry#NEVER}
     * for never), on {@code from} replicas; completes once {@code ack} of them stored it. The expiry is absolute,
     * so every replica, hint and repair carries the same one.
     */
    public CompletionStage<Void> put(byte[] key, byte[] value, long expiresAtMillis, Quorum quorum) {
        return stamped("PUT", timestamp -> Entry.value(key, value, timestamp, expiresAtMillis), quorum);
    }

    /**
     * Stores a tombstone on {@code from} replicas; completes once {@code ack} of them stored it. Like
     * {@link #put}, fails without writing anything if the clock's lease cannot be extended (an
     * {@link io.kvstore.core.InsufficientStorageException} on a full disk).
     */
    public CompletionStage<Void> delete(byte[] key, Quorum quorum) {
        return stamped("DELETE", timestamp -> Entry.tombstone(key, timestamp), quorum);
    }

    /** Writes the entry {@code stamp} makes of a new timestamp; a clock that cannot issue one fails the stage. */
    private CompletionStage<Void> stamped(String method, LongFunction<Entry> stamp, Quorum quorum) {
        Entry entry;
        try {
            entry = stamp.apply(clock.now());
        } catch (UncheckedIOException e) {
            return CompletableFuture.failedFuture(e.getCause());
        }
        return write(method, entry, quorum);
    }

    /**
     * Stores a version made by the caller (a value or a tombstone with its timestamp) on {@code from}
     * replicas; completes once {@code ack} of them stored it. The caller takes the timestamp from this
     * coordinator's clock, so that it can send the same version elsewhere too (pending replicas).
     */
    public CompletionStage<Void> write(Entry entry, Quorum quorum) {
        return write(entry.isTombstone() ? "DELETE" : "PUT", entry, quorum);
    }

    /**
     * Stores a version made by the caller on {@code from} replicas and on {@code pending} nodes outside
     * this coordinator's placement (the key's future replicas while the cluster changes); completes once
     * {@code ack + pending.size()} of them stored it, as Cassandra counts pending endpoints. Whichever
     * set ends up holding the key, at least {@code ack} of its replicas then hold the version (at most
     * {@code pending.size()} of the acknowledgements come from nodes outside it), and a slow newcomer
     * delays no write whose current replicas all answer. Pending nodes that fail are not hinted: repair
     * brings them what they missed.
     *
     * @param pending      the pending nodes' replicas, none of them among the key's {@code from} targets
     * @param pendingNodes their URLs, in the same order, for error messages
     */
    public CompletionStage<Void> write(Entry entry, Quorum quorum, List<Replica> pending, List<String> pendingNodes) {
        if (pending.size() != pendingNodes.size()) {
            throw new IllegalArgumentException(pending.size() + " pending replicas but " + pendingNodes.size() + " names");
        }
        return fanOut(entry.isTombstone() ? "DELETE" : "PUT", entry.key(), quorum, (a, b) -> null, null, null, entry,
                replica -> replica.upsert(entry), pending, pendingNodes);
    }

    /**
     * Hands a version to one replica outside any request (read repair): a failure is hinted, a refusal as
     * sent on an older map goes to the {@link StaleWriteSink}.
     */
    CompletionStage<Void> repair(int node, Entry version) {
        readRepairs.increment();
        CompletionStage<Void> written;
        try {
            written = replicas.get(node).upsert(version);
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        return written.whenComplete((ok, error) -> {
            if (error == null) {
                if (detector != null) {
                    detector.answered(node);
                }
            } else {
                failed(version, node, unwrap(error));
            }
        });
    }

    /** Versions read repair has handed to replicas that answered an older one, since this coordinator started. */
    public long readRepairs() {
        return readRepairs.sum();
    }

    /** The replication factor: the default {@code from}, and how many replicas repair keeps in sync. */
    public int replicationFactor() {
        return replicationFactor;
    }

    /** The default quorum: {@code from} = RF, {@code ack} = its majority. */
    public Quorum defaultQuorum() {
        return Quorum.of(Quorum.majorityOf(replicationFactor), replicationFactor, replicas.size());
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

    private CompletionStage<Void> write(String method, Entry entry, Quorum quorum) {
        return fanOut(method, entry.key(), quorum, (a, b) -> null, null, null, entry, replica -> replica.upsert(entry),
                List.of(), List.of());
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    NotEnoughReplicasException notEnough(String method, byte[] key, int ack, int got, String why, Throwable cause) {
        return new NotEnoughReplicasException(method + " key '" + Bytes.toDebugString(key) + "': " + why + "; needed "
                + ack + " replicas with the newest version, got " + got, ack, got,
                cause == null ? List.of() : List.of(cause), cause);
    }

    /** Node {@code node} did not acknowledge the write of {@code entry}: it is a failure, and a hint. */
    private void unacknowledged(int node, Entry entry, Throwable cause) {
        if (detector != null) {
            detector.failed(node, cause);
        }
        if (hints != null) {
            hints.hint(node, entry);
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /**
     * @param targets the replicas of the key if the caller computed them already, else null
     * @param repair  the read repair of a GET, told every answer; null if none
     * @param written the version a PUT or DELETE writes, hinted to the replicas that do not acknowledge it
     * @param pending replicas asked besides the targets, each raising {@code ack} and {@code from} by one
     */
    private <T> CompletionStage<T> fanOut(String method, byte[] key, Quorum quorum, BinaryOperator<T> merge,
                                          int[] targets, ReadRepairRound repair, Entry written,
                                          Function<Replica, CompletionStage<T>> call,
                                          List<Replica> pending, List<String> pendingNodes) {
        if (quorum.from() > replicas.size()) {
            throw new InvalidQuorumException("from=" + quorum.from() + " exceeds the cluster size " + replicas.size());
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException(method + " key '"
                    + Bytes.toDebugString(key) + "': the coordinator is closed"));
        }
        if (targets == null) {
            targets = partitioner.replicas(key, quorum.from());
        }
        QuorumRound<T> round = new QuorumRound<>(method, key, quorum.ack() + pending.size(),
                quorum.from() + pending.size(), merge, timeoutNanos);
        for (int position = 0; position < targets.length; position++) {
            int target = targets[position];
            int at = position;
            String node = partitioner.nodes().get(target);
            if (detector != null && detector.isDraining(target)) {
                // Not asked at all: it is stopping, and its write is hinted for when it serves again.
                NodeDrainingException draining = new NodeDrainingException(node);
                failed(written, target, draining);
                round.onFailure(node, draining);
                continue;
            }
            CompletionStage<T> answer;
            try {
                answer = call.apply(replicas.get(target));
            } catch (RuntimeException e) {
                // A replica must fail through its stage; one that throws still counts as one failure.
                failed(written, target, e);
                round.onFailure(node, e);
                continue;
            }
            answer.whenComplete((value, error) -> {
                if (error == null) {
                    if (detector != null) {
                        detector.answered(target);
                    }
                    if (value instanceof Entry) {
                        // Every version read, even one that loses the merge, moves this clock past it.
                        clock.observe(((Entry) value).timestamp());
                    }
                    if (repair != null) {
                        repair.answer(at, (Entry) value);
                    }
                    round.onSuccess(value);
                } else {
                    Throwable cause = unwrap(error);
                    if (LOG.isDebugEnabled()) {
                        LOG.debug("{} of key '{}' failed on {}", method, Bytes.toDebugString(key), node, cause);
                    }
                    failed(written, target, cause);
                    round.onFailure(node, cause);
                }
            });
        }
        for (int i = 0; i < pending.size(); i++) {
            String node = pendingNodes.get(i);
            CompletionStage<T> answer;
            try {
                answer = call.apply(pending.get(i));
            } catch (RuntimeException e) {
                round.onFailure(node, e);
                continue;
            }
            answer.whenComplete((value, error) -> {
                if (error == null) {
                    round.onSuccess(value);
                } else {
                    Throwable cause = unwrap(error);
                    if (cause instanceof StaleEpochException stale && written != null && staleWrites != null) {
                        staleWrites.refused(written, stale.replicaEpoch());
                    }
                    round.onFailure(node + " (pending)", cause);
                }
            });
        }
        if (round.allSent()) {
            deadlines.watch(round);
        }
        return round.result();
    }

    /**
     * A replica failed a request: a write it did not acknowledge is hinted, a read only counted. A replica
     * that refused the request as overloaded answered, and is not suspected. A replica
     * that refused the request as sent on an older map answered: it is not suspected, and a write it
     * refused goes to the {@link StaleWriteSink}, to be written again on the newer map, rather than to a
     * hint for this map's replica.
     */
    private void failed(Entry written, int target, Throwable cause) {
        if (NotEnoughReplicasException.isOverload(cause)) {
            // It answered: alive, only busy; a write it refused is hinted as any other it missed.
            if (detector != null) {
                detector.answered(target);
            }
            if (written != null && hints != null) {
                hints.hint(target, written);
            }
        } else if (cause instanceof StaleEpochException stale) {
            if (detector != null) {
                detector.answered(target);
            }
            if (written != null && staleWrites != null) {
                staleWrites.refused(written, stale.replicaEpoch());
            }
        } else if (written != null) {
            unacknowledged(target, written, cause);
        } else if (detector != null) {
            detector.failed(target, cause);
        }
    }

    /** The newer of two answers by the one version rule, {@link Entry#newerOf}; {@code null} (absent) loses. */
    static Entry newer(Entry a, Entry b) {
        return Entry.newerOf(a, b);
    }

    /** Collects a coordinator's collaborators and options; {@link #build()} validates them. */
    public static final class Builder {
        private final Partitioner partitioner;
        private final List<Replica> replicas;
        private final HybridClock clock;
        private Duration timeout = Duration.ofSeconds(2);
        private ReplicationOptions options = ReplicationOptions.defaults();
        private FailureDetector detector;
        private HintSink hints;
        private StaleWriteSink staleWrites;

        private Builder(Partitioner partitioner, List<Replica> replicas, HybridClock clock) {
            this.partitioner = partitioner;
            this.replicas = replicas;
            this.clock = clock;
        }

        /** How long a request may wait for its {@code ack} answers (default 2 s). */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** RF, read repair, hints on or off (default {@link ReplicationOptions#defaults()}). */
        public Builder options(ReplicationOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /** Told every answer and failure of a replica (default none). */
        public Builder failureDetector(FailureDetector detector) {
            this.detector = detector;
            return this;
        }

        /** Where writes a replica refused as sent on an older map go (default none: they are not written again). */
        public Builder staleWrites(StaleWriteSink staleWrites) {
            this.staleWrites = staleWrites;
            return this;
        }

        /** Where writes a replica did not acknowledge go, if the options have hints on (default none). */
        public Builder hintedHandoff(HintSink hints) {
            this.hints = hints;
            return this;
        }

        /** @throws IllegalArgumentException if the options or collaborators do not fit the cluster */
        public ReplicaCoordinator build() {
            return new ReplicaCoordinator(this);
        }
    }
}
