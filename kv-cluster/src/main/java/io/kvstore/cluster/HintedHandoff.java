package io.kvstore.cluster;

import io.kvstore.core.Bytes;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
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
 *   <li>Replay is throttled to a rate in bytes per second, so that a returning node is not flooded;
 *       hints older than the tombstone grace period are dropped, never replayed, since the tombstones they
 *       might carry, or that shadow them, may be purged elsewhere.</li>
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
    private final List<String> nodes;
    private final List<Replica> replicas;
    private final FailureDetector detector;
    private final ReplicationOptions options;
    private final LongSupplier wallMillis;
    private final ScheduledExecutorService worker;
    private final AtomicBoolean[] replaying;
    private final LongAdder stored = new LongAdder();
    private final LongAdder replayed = new LongAdder();
    private final LongAdder droppedPastWindow = new LongAdder();
    private final LongAdder droppedFull = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder failedToStore = new LongAdder();

    /**
     * @param hintDao    the store the hints live in, owned (closed) by this object
     * @param hintClock  the hint store's own clock; it must not go back across restarts (use a {@link ClockLease})
     * @param nodes      every node, in placement order
     * @param replicas   the replica of each node, in the same order
     */
    public HintedHandoff(Dao hintDao, HybridClock hintClock, List<String> nodes, List<Replica> replicas,
                         FailureDetector detector, ReplicationOptions options, LongSupplier wallMillis) throws IOException {
        this.store = new HintStore(hintDao, hintClock);
        this.nodes = List.copyOf(nodes);
        this.replicas = List.copyOf(replicas);
        this.detector = Objects.requireNonNull(detector, "detector");
        this.options = Objects.requireNonNull(options, "options");
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
        this.replaying = new AtomicBoolean[nodes.size()];
        for (int i = 0; i < replaying.length; i++) {
            replaying[i] = new AtomicBoolean();
        }
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kv-hints");
            t.setDaemon(true);
            return t;
        });
        detector.onUp(node -> submit(() -> replay(node)));
    }

    /** Starts the periodic replay; hints kept by an earlier run are delivered once their nodes answer. */
    public HintedHandoff start() {
        worker.scheduleWithFixedDelay(this::replayAll, REPLAY_PERIOD_MILLIS, REPLAY_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Node {@code node} did not acknowledge {@code entry}: keeps a hint for it, unless the node is past
     * the hint window or its hints are at their bound. Returns at once; the hint is stored in the
     * background.
     */
    @Override
    public void hint(int node, Entry entry) {
        if (node == detector.self()) {
            return;
        }
        long downSince = detector.downSinceMillis(node);
        if (downSince != 0 && wallMillis.getAsLong() - downSince > options.hintWindow().toMillis()) {
            droppedPastWindow.increment();
            return;
        }
        String target = nodes.get(node);
        submit(() -> {
            if (store.pendingBytes(target) >= options.maxHintBytes()) {
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

    /** Hints waiting for node {@code node}. */
    public long pendingHints(int node) {
        return store.pendingCount(nodes.get(node));
    }

    /** Bytes of the hints waiting for node {@code node}. */
    public long pendingHintBytes(int node) {
        return store.pendingBytes(nodes.get(node));
    }

    /** Counters since this node started: stored, replayed, droppedPastWindow, droppedFull, expired, failedToStore. */
    public Counters counters() {
        return new Counters(stored.sum(), replayed.sum(), droppedPastWindow.sum(), droppedFull.sum(), expired.sum(),
                failedToStore.sum());
    }

    /** What hinted handoff did since this node started. */
    public static final class Counters {
        public final long stored;
        public final long replayed;
        public final long droppedPastWindow;
        public final long droppedFull;
        public final long expired;
        public final long failedToStore;

        Counters(long stored, long replayed, long droppedPastWindow, long droppedFull, long expired, long failedToStore) {
            this.stored = stored;
            this.replayed = replayed;
            this.droppedPastWindow = droppedPastWindow;
            this.droppedFull = droppedFull;
            this.expired = expired;
            this.failedToStore = failedToStore;
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
        for (int node = 0; node < nodes.size(); node++) {
            replay(node);
        }
    }

    /** Sends the next batch of hints to {@code node} if it is up, has hints, and no batch is on its way. */
    private void replay(int node) {
        if (node == detector.self() || detector.state(node) != PeerState.UP
                || store.pendingCount(nodes.get(node)) == 0 || !replaying[node].compareAndSet(false, true)) {
            return;
        }
        List<Hint> batch;
        try {
            long budget = Math.max(1, options.hintReplayBytesPerSecond() * REPLAY_PERIOD_MILLIS / 1000);
            batch = store.oldest(nodes.get(node), budget, MAX_BATCH);
        } catch (IOException | RuntimeException e) {
            replaying[node].set(false);
            LOG.error("cannot read the hints for {}", nodes.get(node), e);
            return;
        }
        long oldestAllowed = wallMillis.getAsLong() - options.tombstoneGrace().toMillis();
        CompletableFuture<?>[] sent = new CompletableFuture<?>[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            Hint hint = batch.get(i);
            if (HybridClock.millisOf(hint.entry.timestamp()) < oldestAllowed) {
                expired.increment();
                sent[i] = CompletableFuture.completedFuture(null).thenRun(() -> remove(hint));
                continue;
            }
            CompletionStage<Void> delivered;
            try {
                delivered = replicas.get(node).upsert(hint.entry);
            } catch (RuntimeException e) {
                delivered = CompletableFuture.failedFuture(e);
            }
            sent[i] = delivered.toCompletableFuture().handleAsync((ok, error) -> {
                if (error == null) {
                    detector.answered(node);
                    replayed.increment();
                    remove(hint);
                } else {
                    detector.failed(node, error);
                }
                return null;
            }, worker);
        }
        CompletableFuture.allOf(sent).whenComplete((done, error) -> replaying[node].set(false));
    }

    private void remove(Hint hint) {
        try {
            store.remove(hint);
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot remove the delivered {}", hint, e);
        }
    }
}
