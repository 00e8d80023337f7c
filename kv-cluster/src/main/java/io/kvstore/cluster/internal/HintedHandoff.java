package io.kvstore.cluster.internal;

import io.kvstore.cluster.ClockLease;
import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.HintSink;
import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.PeerState;
import io.kvstore.cluster.Replica;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.StaleEpochException;
import io.kvstore.core.Bytes;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.background.BudgetLane;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hinted handoff: a write that a replica did not acknowledge (an error, a timeout) is kept in a durable
 * {@link HintStore} on this node and replayed to that replica once the {@link FailureDetector} sees it up
 * again. Hints never count toward a request's {@code ack}.
 *
 * <ul>
 *   <li>A node down longer than the hint window gets no new hints: anti-entropy covers it.</li>
 *   <li>The hints kept for one node are bounded in bytes; past the bound new hints are dropped and
 *       counted.</li>
 *   <li>Replay is paced by the node's answers ({@link ReplayPace}): one batch at a time, growing while
 *       batches come back quickly and halved when one comes back late or fails, so that a returning node
 *       is not flooded while it also serves; the configured rate in bytes per second is the cap. Each
 *       batch starts after the last hint delivered, so its cost does not grow with the hints already
 *       delivered. Hints older than the tombstone grace period are dropped, never replayed, since the tombstones they
 *       might carry, or that shadow them, may be purged elsewhere.</li>
 *   <li>The nodes hints go to follow the cluster map ({@link #follow}): a node that joined gets hints
 *       like any other; the hints of a node that left are dropped and counted, never replayed.</li>
 * </ul>
 *
 * <p>Storing and replaying run on one thread of their own ({@code kv-hints}), never on the caller's: the
 * hint store's calls may block on the disk. Thread-safe.
 */
public final class HintedHandoff implements HintSink, AutoCloseable {
    /** How often replay looks for hints to deliver; each period delivers at most a period's worth of bytes. */
    static final long REPLAY_PERIOD_MILLIS = 100;
    /** Hints sent at once to one node at most. */
    private static final int MAX_BATCH = 512;

    private static final Logger LOG = LoggerFactory.getLogger(HintedHandoff.class);

    private final HintStore store;
    private volatile Targets targets;
    private final ReplicationOptions options;
    private final LongSupplier wallMillis;
    private final ScheduledExecutorService worker;
    /** Per node, whether a batch of its hints is on its way. */
    private final Map<String, AtomicBoolean> replaying = new ConcurrentHashMap<>();
    /** Per node, the size of its next batch; used only by the replay holding {@link #replaying}. */
    private final Map<String, ReplayPace> paces = new ConcurrentHashMap<>();
    private final LongAdder stored = new LongAdder();
    private final LongAdder replayed = new LongAdder();
    private final LongAdder droppedPastWindow = new LongAdder();
    private final LongAdder droppedFull = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder failedToStore = new LongAdder();
    private final LongAdder droppedNodeLeft = new LongAdder();
    private final LongAdder droppedNotReplica = new LongAdder();
    /**
     * Whether a node is a replica of a key under the newest map. A hint for a key its node no longer
     * holds is dropped: delivered after that node's cleanup, it would be a copy no later delete reaches.
     */
    private volatile BiPredicate<String, byte[]> isReplica = (node, key) -> true;
    /** The node's background budget lane replay also keeps to, below its own rate; null: its own rate only. */
    private volatile BudgetLane replayLane;

    /** The nodes hints go to, with their replicas and the detector that watches them, in placement order. */
    private static final class Targets {
        final List<String> nodes;
        final List<Replica> replicas;
        final FailureDetector detector;

        Targets(List<String> nodes, List<Replica> replicas, FailureDetector detector) {
            this.nodes = List.copyOf(nodes);
            this.replicas = List.copyOf(replicas);
            this.detector = Objects.requireNonNull(detector, "detector");
            if (this.nodes.size() != this.replicas.size() || !this.nodes.equals(detector.nodes())) {
                throw new IllegalArgumentException("hint targets " + nodes + " with " + replicas.size()
                        + " replicas and a detector watching " + detector.nodes());
            }
        }
    }

    /**
     * @param hintDao    the store the hints live in, owned (closed) by this object
     * @param hintClock  the hint store's own clock; it must not go back across restarts (use a {@link ClockLease})
     * @param nodes      every node, in placement order
     * @param replicas   the replica of each node, in the same order
     * @param detector   watches {@code nodes}, in the same order
     */
    public HintedHandoff(Dao hintDao, HybridClock hintClock, List<String> nodes, List<Replica> replicas,
                         FailureDetector detector, ReplicationOptions options, LongSupplier wallMillis) throws IOException {
        this.store = new HintStore(hintDao, hintClock);
        this.targets = new Targets(nodes, replicas, detector);
        this.options = Objects.requireNonNull(options, "options");
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kv-hints");
            t.setDaemon(true);
            return t;
        });
        listen(detector);
    }

    /**
     * Starts the periodic replay; hints kept by an earlier run are delivered once their nodes answer,
     * and those kept for nodes no longer among the targets are dropped.
     */
    public HintedHandoff start() {
        submit(this::dropHintsOfNodesThatLeft);
        worker.scheduleWithFixedDelay(this::replayAll, REPLAY_PERIOD_MILLIS, REPLAY_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * The cluster map changed: from now on hints go to {@code nodes} (in placement order, with their
     * replicas and the detector that watches them, as for the constructor). Hints kept for a node that
     * is not among them any more are dropped in the background and counted, never replayed.
     */
    public void follow(List<String> nodes, List<Replica> replicas, FailureDetector detector) {
        targets = new Targets(nodes, replicas, detector);
        listen(detector);
        submit(this::dropHintsOfNodesThatLeft);
    }

    /**
     * From now on a hint is replayed only if {@code isReplica} (read at each replay: the newest map's
     * placement) still makes its node a replica of its key; the others are dropped and counted.
     */
    public void deliverOnlyWhere(BiPredicate<String, byte[]> isReplica) {
        this.isReplica = Objects.requireNonNull(isReplica, "isReplica");
    }

    /**
     * From now on each replay period delivers no more than {@code lane}'s share of the node's background
     * budget allows (nor more than the replay rate), and counts what it delivered there.
     */
    public void drawReplayFrom(BudgetLane lane) {
        this.replayLane = lane;
    }

    private void listen(FailureDetector detector) {
        detector.onUp(index -> {
            String node = detector.nodes().get(index);
            submit(() -> replay(node));
        });
    }

    /**
     * Node {@code node} (an index among the current targets) did not acknowledge {@code entry}; see
     * {@link #hint(String, Entry)}.
     */
    @Override
    public void hint(int node, Entry entry) {
        hint(targets.nodes.get(node), entry);
    }

    /**
     * Node {@code node} did not acknowledge {@code entry}: keeps a hint for it, unless the node is past
     * the hint window, its hints are at their bound or it is no longer a target. Returns at once; the
     * hint is stored in the background.
     */
    public void hint(String node, Entry entry) {
        Targets current = targets;
        int index = current.nodes.indexOf(node);
        if (index < 0) {
            droppedNodeLeft.increment();
            return;
        }
        if (index == current.detector.self()) {
            return;
        }
        long downSince = current.detector.downSinceMillis(index);
        if (downSince != 0 && wallMillis.getAsLong() - downSince > options.hintWindow().toMillis()) {
            droppedPastWindow.increment();
            return;
        }
        String target = node;
        submit(() -> {
            if (!targets.nodes.contains(target)) {
                // The node left between the write and now; its other hints are being dropped.
                droppedNodeLeft.increment();
                return;
            }
            if (store.pendingBytes(target) >= options.maxHintBytes() || store.storedBytes() >= storeBound()) {
                droppedFull.increment();
                return;
            }
            try {
                store.append(target, entry);
                stored.increment();
            } catch (IOException | RuntimeException e) {
                failedToStore.increment();
                LOG.error("cannot keep a hint of key '{}' for {}", Bytes.toDebugString(entry.key()), target, e);
            }
        });
    }

    /**
     * What the hint store may hold on disk, tombstones of delivered hints included: the bound of one
     * node's hints for every other node of the map, so that hints replayed and removed faster than
     * compactions drop their tombstones cannot fill the disk either.
     */
    private long storeBound() {
        long others = Math.max(1, targets.nodes.size() - 1);
        long bound = options.maxHintBytes() * others;
        return bound / others == options.maxHintBytes() ? bound : Long.MAX_VALUE;
    }

    /** Hints waiting for node {@code node}, an index among the current targets. */
    public long pendingHints(int node) {
        return pendingHints(targets.nodes.get(node));
    }

    /** Bytes of the hints waiting for node {@code node}, an index among the current targets. */
    public long pendingHintBytes(int node) {
        return pendingHintBytes(targets.nodes.get(node));
    }

    /** Hints waiting for node {@code node}. */
    public long pendingHints(String node) {
        return store.pendingCount(node);
    }

    /** Bytes of the hints waiting for node {@code node}. */
    public long pendingHintBytes(String node) {
        return store.pendingBytes(node);
    }

    /**
     * The rate replay to {@code node} goes at now, in bytes per second: its pace's next batch per period;
     * the configured cap until a batch was sent.
     */
    public long replayBytesPerSecond(String node) {
        ReplayPace pace = paces.get(node);
        return pace == null ? options.hintReplayBytesPerSecond() : pace.batchBytes() * 1000 / REPLAY_PERIOD_MILLIS;
    }

    /**
     * Counters since this node started: stored, replayed, droppedPastWindow, droppedFull, expired,
     * failedToStore, droppedNodeLeft, droppedNotReplica.
     */
    public Counters counters() {
        return new Counters(stored.sum(), replayed.sum(), droppedPastWindow.sum(), droppedFull.sum(), expired.sum(),
                failedToStore.sum(), droppedNodeLeft.sum(), droppedNotReplica.sum());
    }

    /** What hinted handoff did since this node started. */
    public static final class Counters {
        public final long stored;
        public final long replayed;
        public final long droppedPastWindow;
        public final long droppedFull;
        public final long expired;
        public final long failedToStore;
        /** Hints dropped, kept or not yet, because their node left the cluster. */
        public final long droppedNodeLeft;
        /** Hints dropped unsent because the newest map no longer makes their node a replica of their key. */
        public final long droppedNotReplica;

        Counters(long stored, long replayed, long droppedPastWindow, long droppedFull, long expired, long failedToStore,
                 long droppedNodeLeft, long droppedNotReplica) {
            this.droppedNotReplica = droppedNotReplica;
            this.stored = stored;
            this.replayed = replayed;
            this.droppedPastWindow = droppedPastWindow;
            this.droppedFull = droppedFull;
            this.expired = expired;
            this.failedToStore = failedToStore;
            this.droppedNodeLeft = droppedNodeLeft;
        }
    }

    /**
     * Stops replay and storing, waits for the hint thread (up to 10 s), and closes the hint store. Hints
     * not yet delivered stay in it for the next run.
     */
    @Override
    public void close() throws IOException {
        worker.shutdown();
        try {
            if (!worker.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("hint thread still busy after 10 s; closing the hint store anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        store.close();
    }

    private void submit(Runnable task) {
        try {
            worker.execute(task);
        } catch (RejectedExecutionException closed) {
            // shutting down: a hint not stored now is covered by read repair and anti-entropy
        }
    }

    private void replayAll() {
        for (String node : targets.nodes) {
            replay(node);
        }
    }

    /** Drops the hints of every node that is no longer a target: they would wait forever. */
    private void dropHintsOfNodesThatLeft() {
        List<String> current = targets.nodes;
        for (String node : store.targets()) {
            if (current.contains(node)) {
                continue;
            }
            try {
                long dropped = store.removeAll(node);
                droppedNodeLeft.add(dropped);
                LOG.info("dropped {} hints kept for {}, which left the cluster", dropped, node);
            } catch (IOException | RuntimeException e) {
                LOG.error("cannot drop the hints kept for {}, which left the cluster", node, e);
            }
        }
    }

    /**
     * Sends the next batch of hints to {@code node} if it is up, has hints, and no batch is on its way;
     * drops the expired ones and those of keys {@code node} is no longer a replica of.
     */
    private void replay(String node) {
        Targets current = targets;
        int index = current.nodes.indexOf(node);
        if (index < 0 || index == current.detector.self() || current.detector.state(index) != PeerState.UP
                || store.pendingCount(node) == 0) {
            return;
        }
        AtomicBoolean busy = replaying.computeIfAbsent(node, n -> new AtomicBoolean());
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        FailureDetector detector = current.detector;
        Replica replica = current.replicas.get(index);
        ReplayPace pace = paces.computeIfAbsent(node,
                n -> new ReplayPace(Math.max(1, options.hintReplayBytesPerSecond() * REPLAY_PERIOD_MILLIS / 1000)));
        List<Hint> batch;
        try {
            long budget = pace.batchBytes();
            BudgetLane lane = replayLane;
            if (lane != null) {
                budget = Math.min(budget, lane.bytesPer(TimeUnit.MILLISECONDS.toNanos(REPLAY_PERIOD_MILLIS)));
            }
            batch = store.oldest(node, budget, MAX_BATCH);
            if (lane != null) {
                lane.consumed(batch.stream().mapToLong(Hint::bytes).sum());
            }
        } catch (IOException | RuntimeException e) {
            busy.set(false);
            LOG.error("cannot read the hints for {}", node, e);
            return;
        }
        long oldestAllowed = wallMillis.getAsLong() - options.tombstoneGrace().toMillis();
        long startNanos = System.nanoTime();
        long[] sentBytes = new long[1];
        AtomicBoolean allDelivered = new AtomicBoolean(true);
        CompletableFuture<?>[] sent = new CompletableFuture<?>[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            Hint hint = batch.get(i);
            if (HybridClock.millisOf(hint.entry.timestamp()) < oldestAllowed) {
                expired.increment();
                sent[i] = CompletableFuture.completedFuture(null).thenRun(() -> remove(hint));
                continue;
            }
            if (!isReplica.test(node, hint.entry.key())) {
                droppedNotReplica.increment();
                sent[i] = CompletableFuture.completedFuture(null).thenRun(() -> remove(hint));
                continue;
            }
            sentBytes[0] += hint.bytes();
            CompletionStage<Void> delivered;
            try {
                delivered = replica.upsert(hint.entry);
            } catch (RuntimeException e) {
                delivered = CompletableFuture.failedFuture(e);
            }
            sent[i] = delivered.toCompletableFuture().handleAsync((ok, error) -> {
                if (error == null) {
                    detector.answered(index);
                    replayed.increment();
                    remove(hint);
                } else if (refusedAsStale(error)) {
                    // The node answered: it is on a newer map; the hint goes again once this node has that map.
                    detector.answered(index);
                } else {
                    allDelivered.set(false);
                    detector.failed(index, error);
                }
                return null;
            }, worker);
        }
        CompletableFuture.allOf(sent).whenComplete((done, error) -> {
            if (sentBytes[0] > 0) {
                pace.answered(sentBytes[0], System.nanoTime() - startNanos, allDelivered.get());
            }
            busy.set(false);
        });
    }

    private static boolean refusedAsStale(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof StaleEpochException;
    }

    private void remove(Hint hint) {
        try {
            store.remove(hint);
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot remove the delivered {}", hint, e);
        }
    }
}
