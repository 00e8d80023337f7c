package io.kvstore.cluster.internal.repair;

import io.kvstore.core.QuarantinedInterval;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Anti-entropy of one node: an exchange ({@link RepairExchange}) with each peer in turn, on demand and
 * on an interval.
 *
 * <p>Peers go one after another, not in parallel: a node rebuilt from empty then takes each key from
 * the first peer that has it, and the next peers' trees already match. A peer that fails does not stop
 * the others; the report names it. The periodic run starts one interval after {@link #start} and the
 * next one interval after the previous ended, so runs never overlap; its timer thread only starts
 * runs, the scans and the exchanges run on the executors given.
 *
 * <p>The peers and the replication factor are read at the start of each run, so a run follows the
 * cluster map of its moment: a node that joined is a peer of the next run, one that left is not.
 *
 * <p>The key intervals this node's store refuses, a table of them damaged, are healed by exchanges of
 * each interval alone ({@link #heal}), which every run makes first: healing costs the intervals' keys,
 * not the store's.
 */
public final class AntiEntropy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AntiEntropy.class);
    /** Segments per tree unless told otherwise: 65,536, about 15 keys each in a store of a million. */
    public static final int DEFAULT_DEPTH = 16;
    /** Deepest tree a node builds: 2^20 segments, 16 MiB of hashes. */
    public static final int MAX_DEPTH = SegmentTree.MAX_DEPTH;

    private final RepairResponder local;
    private final Supplier<List<String>> peers;
    private final Function<String, RepairPeer> connect;
    private final IntSupplier replicationFactor;
    private final int depth;
    private final Executor executor;
    private final ScheduledExecutorService timer;
    private volatile boolean closed;

    /**
     * @param peers             the other nodes of the cluster
     * @param connect           makes the {@link RepairPeer} of one node for one exchange
     * @param replicationFactor exchanges cover the keys both sides hold among the first this-many replicas
     * @param depth             trees of {@code 2^depth} segments, in {@code [1, 20]}
     * @param executor          runs the light steps between calls of an exchange
     */
    public AntiEntropy(RepairResponder local, List<String> peers, Function<String, RepairPeer> connect, int replicationFactor, int depth, Executor executor) {
        this(local, constant(peers), connect, () -> replicationFactor, depth, executor);
    }

    /**
     * Anti-entropy whose peers follow the placement of {@code local}: every other node of
     * {@link RepairResponder#placement()} at the start of each run, none while this node is not among
     * them (it is joining, or it left).
     *
     * @param replicationFactor gives the replication factor at the start of each run
     */
    public AntiEntropy(RepairResponder local, Function<String, RepairPeer> connect, IntSupplier replicationFactor, int depth,
                       Executor executor) {
        this(local, () -> peersOf(local), connect, replicationFactor, depth, executor);
    }

    private AntiEntropy(RepairResponder local, Supplier<List<String>> peers, Function<String, RepairPeer> connect,
                        IntSupplier replicationFactor, int depth, Executor executor) {
        this.local = Objects.requireNonNull(local, "local");
        this.peers = peers;
        this.connect = Objects.requireNonNull(connect, "connect");
        if (depth < 1 || depth > SegmentTree.MAX_DEPTH) {
            throw new IllegalArgumentException("tree depth must be in [1, " + SegmentTree.MAX_DEPTH + "], got " + depth);
        }
        this.replicationFactor = Objects.requireNonNull(replicationFactor, "replicationFactor");
        this.depth = depth;
        this.executor = Objects.requireNonNull(executor, "executor");
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kv-anti-entropy");
            t.setDaemon(true);
            return t;
        });
    }

    private static Supplier<List<String>> constant(List<String> peers) {
        List<String> copy = List.copyOf(peers);
        return () -> copy;
    }

    private static List<String> peersOf(RepairResponder local) {
        List<String> nodes = local.placement().nodes();
        if (!nodes.contains(local.node())) {
            return List.of();
        }
        List<String> peers = new ArrayList<>(nodes);
        peers.remove(local.node());
        return peers;
    }

    /** Keys sent and received by the exchanges this node started, and those exchanges, since it started. */
    private final LongAdder keysSent = new LongAdder();
    private final LongAdder keysReceived = new LongAdder();
    private final LongAdder exchanges = new LongAdder();
    private final LongAdder failedExchanges = new LongAdder();

    /** Keys this node sent to peers in the exchanges it started. */
    public long keysSent() {
        return keysSent.sum();
    }

    /** Keys this node received from peers in the exchanges it started. */
    public long keysReceived() {
        return keysReceived.sum();
    }

    /** Exchanges with one peer this node started that completed. */
    public long exchanges() {
        return exchanges.sum();
    }

    /** Exchanges with one peer this node started that failed. */
    public long failedExchanges() {
        return failedExchanges.sum();
    }

    /**
     * Exchanges with every peer now, one after another; the stage never fails, the report says what did.
     * The key intervals this node's store refuses at the start, a table of them damaged, are refetched
     * and healed first, as {@link #heal} does; then come the exchanges over the whole key space, which
     * leave the intervals still refused out of this node's side, so the peers send their keys back. Once
     * every exchange succeeded under a replication factor of 2 or more, every key of the intervals
     * refused at the start that this node owns has been compared with another replica's, and the store
     * serves them again ({@link io.kvstore.core.Dao#healInterval}).
     */
    public CompletionStage<RepairReport> repairAll() {
        return repairAll(RepairProgress.NONE);
    }

    /** {@link #repairAll()}, telling {@code progress} the exchanges it plans and what each does as it goes. */
    public CompletionStage<RepairReport> repairAll(RepairProgress progress) {
        long started = System.nanoTime();
        Run run = new Run(local.quarantined(), replicationFactor.getAsInt(), Objects.requireNonNull(progress, "progress"));
        List<String> targets = peers.get();
        boolean refetching = !run.refused.isEmpty() && !targets.isEmpty() && run.replicationFactor >= 2;
        progress.planned(targets.size() * (refetching ? 1 + run.refused.size() : 1));
        CompletionStage<Void> chain = run.refused.isEmpty() ? CompletableFuture.completedFuture(null) : refetch(run);
        for (String peer : targets) {
            chain = chain.thenCompose(previous -> exchange(run, peer, KeyInterval.ALL, false)).thenAccept(ok -> { });
        }
        if (!run.refused.isEmpty()) {
            chain = chain.thenCompose(done -> {
                synchronized (run) {
                    if (local.quarantined().isEmpty()) {
                        return CompletableFuture.completedFuture(null);
                    }
                    if (!run.failures.isEmpty() || run.summaries.isEmpty() || run.replicationFactor < 2) {
                        LOG.warn("anti-entropy of {}: {} quarantined key intervals stay refused (failed peers {}, {}"
                                + " exchanges, replication factor {})", local.node(), local.quarantined().size(),
                                run.failures.keySet(), run.summaries.size(), run.replicationFactor);
                        return CompletableFuture.completedFuture(null);
                    }
                }
                return healRefetched(run, run.refused);
            });
        }
        return chain.thenApply(done -> run.report(local.node(), started));
    }

    /**
     * Refetches from every peer, one after another, each key interval this node's store refuses within
     * {@code [from, to)} ({@code null}: open end) and heals it: per interval an exchange restricted to
     * its keys ({@link RepairExchange}), in which this node lists none of them and takes the peers'
     * versions, then {@link io.kvstore.core.Dao#healInterval} once every peer's exchange of it
     * succeeded. The scans on both sides read the interval's keys only. Under a replication factor of 1,
     * or with no peer, nothing is refetched or healed; {@link #canRefetch} tells beforehand. The stage
     * never fails, the report says what did.
     */
    public CompletionStage<RepairReport> heal(byte[] from, byte[] to) {
        long started = System.nanoTime();
        List<QuarantinedInterval> within = new ArrayList<>();
        for (QuarantinedInterval interval : local.quarantined()) {
            if (interval.within(from, to)) {
                within.add(interval);
            }
        }
        Run run = new Run(within, replicationFactor.getAsInt(), RepairProgress.NONE);
        CompletionStage<Void> chain = within.isEmpty() ? CompletableFuture.completedFuture(null) : refetch(run);
        return chain.thenApply(done -> run.report(local.node(), started));
    }

    /** Whether this node has another copy to refetch a refused interval from: a peer, and 2 or more replicas. */
    public boolean canRefetch() {
        return replicationFactor.getAsInt() >= 2 && !peers.get().isEmpty();
    }

    /** The exchanges of each refused interval of {@code run} with every peer, then the healing of those that all succeeded. */
    private CompletionStage<Void> refetch(Run run) {
        List<String> targets = peers.get();
        if (targets.isEmpty() || run.replicationFactor < 2) {
            LOG.warn("anti-entropy of {}: {} quarantined key intervals cannot be refetched ({} peers, replication factor {})",
                    local.node(), run.refused.size(), targets.size(), run.replicationFactor);
            return CompletableFuture.completedFuture(null);
        }
        List<QuarantinedInterval> refetched = new ArrayList<>();
        CompletionStage<Void> chain = CompletableFuture.completedFuture(null);
        for (QuarantinedInterval refused : run.refused) {
            KeyInterval interval = KeyInterval.of(refused);
            boolean[] failed = {false};
            for (String peer : targets) {
                chain = chain.thenCompose(previous -> exchange(run, peer, interval, true).thenAccept(ok -> failed[0] |= !ok));
            }
            chain = chain.thenAccept(done -> {
                if (!failed[0]) {
                    refetched.add(refused);
                }
            });
        }
        return chain.thenCompose(done -> refetched.isEmpty() ? CompletableFuture.completedFuture(null)
                : healRefetched(run, refetched));
    }

    private CompletionStage<Void> healRefetched(Run run, List<QuarantinedInterval> refetched) {
        return local.heal(refetched).handle((healed, error) -> {
            if (error != null) {
                LOG.warn("anti-entropy of {}: healing its quarantined key intervals failed", local.node(), error);
            } else {
                synchronized (run) {
                    run.healed += healed;
                }
            }
            return null;
        });
    }

    /**
     * One exchange of {@code run} with {@code peer} over {@code interval}, to {@code heal} a refused
     * interval or not; completes with whether it succeeded.
     */
    private CompletionStage<Boolean> exchange(Run run, String peer, KeyInterval interval, boolean heal) {
        CompletionStage<RepairSummary> exchange;
        try {
            exchange = RepairExchange.run(local, connect.apply(peer), run.replicationFactor, depth, interval, executor,
                    run.progress);
        } catch (RuntimeException e) {
            exchange = CompletableFuture.failedFuture(e);
        }
        return exchange.handle((summary, error) -> {
            synchronized (run) {
                if (error == null) {
                    run.summaries.add(summary);
                    if (heal) {
                        run.heals.add(summary);
                    }
                    exchanges.increment();
                    keysSent.add(summary.keysSent());
                    keysReceived.add(summary.keysReceived());
                } else {
                    run.failures.put(heal ? peer + " " + interval.describe() : peer, reason(error));
                    failedExchanges.increment();
                }
            }
            run.progress.exchangeEnded(peer, error == null);
            return error == null;
        });
    }

    /** What one run did so far; guarded by itself. */
    private static final class Run {
        final List<QuarantinedInterval> refused;
        final int replicationFactor;
        final RepairProgress progress;
        final List<RepairSummary> summaries = new ArrayList<>();
        final List<RepairSummary> heals = new ArrayList<>();
        final Map<String, String> failures = new LinkedHashMap<>();
        int healed;

        Run(List<QuarantinedInterval> refused, int replicationFactor, RepairProgress progress) {
            this.refused = refused;
            this.replicationFactor = replicationFactor;
            this.progress = progress;
        }

        synchronized RepairReport report(String node, long started) {
            return new RepairReport(node, List.copyOf(summaries), List.copyOf(heals), Collections.unmodifiableMap(new LinkedHashMap<>(failures)),
                    refused.size(), healed, System.nanoTime() - started);
        }
    }

    /** Runs {@link #repairAll()} every {@code interval} (measured from the end of the previous run). */
    public void start(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("anti-entropy interval must be positive, got " + interval);
        }
        scheduleNext(interval);
    }

    private void scheduleNext(Duration interval) {
        if (timer.isShutdown()) {
            return;
        }
        try {
            timer.schedule(() -> repairAll().whenComplete((report, error) -> {
                logPeriodic(report);
                scheduleNext(interval);
            }), interval.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // closed meanwhile: no more runs
        }
    }

    private void logPeriodic(RepairReport report) {
        if (report == null) {
            return;
        }
        if (closed && !report.succeeded()) {
            // Closing cut the run short (its connections and threads went): no fault of any peer.
            LOG.info("anti-entropy of {}: stopped with the node; {} keys sent, {} received", report.node(),
                    report.keysSent(), report.keysReceived());
        } else if (report.succeeded()) {
            LOG.info("anti-entropy of {}: {} peers, {} keys sent, {} received, {} ms", report.node(), report.summaries().size(),
                    report.keysSent(), report.keysReceived(), TimeUnit.NANOSECONDS.toMillis(report.durationNanos()));
        } else {
            LOG.warn("anti-entropy of {}: failed with {}; {} keys sent, {} received", report.node(), report.failures(),
                    report.keysSent(), report.keysReceived());
        }
    }

    private static String reason(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage() != null ? cause.getMessage() : cause);
    }

    /**
     * Stops the periodic runs; a run under way finishes on its own, or fails once its caller closes the
     * connections it uses, which is then no failure to warn about.
     */
    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
    }
}
