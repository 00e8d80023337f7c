package io.kvstore.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.ClockLease;
import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.InMemoryDao;
import io.kvstore.cluster.LocalReplica;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.PeerState;
import io.kvstore.cluster.Quorum;
import io.kvstore.cluster.ReadRepair;
import io.kvstore.cluster.Replica;
import io.kvstore.cluster.ReplicaCoordinator;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.StaleEpochException;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.background.BackgroundBudget;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.core.background.BudgetLane;
import io.kvstore.core.testing.ForwardingDao;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hinted handoff over the real engine: hints kept, bounded, replayed, expired, and kept across a reopen. */
class HintedHandoffTest {
    private static final List<String> NODES = List.of("a", "b", "c");

    @TempDir
    Path dir;

    private final InMemoryDao[] stores = {new InMemoryDao(), new InMemoryDao(), new InMemoryDao()};
    private final List<Replica> replicas = List.of(new LocalReplica(stores[0], Runnable::run),
            new LocalReplica(stores[1], Runnable::run), new LocalReplica(stores[2], Runnable::run));
    private final FailureDetector detector = new FailureDetector(NODES, replicas, 0, Duration.ofSeconds(1),
            System::currentTimeMillis);
    private HintedHandoff handoff;

    @AfterEach
    void tearDown() throws IOException {
        if (handoff != null) {
            handoff.close();
        }
    }

    private HintedHandoff open(ReplicationOptions options) throws IOException {
        return open(options, dao -> dao);
    }

    private HintedHandoff open(ReplicationOptions options, UnaryOperator<Dao> wrap) throws IOException {
        Path hints = dir.resolve("hints");
        Dao dao = wrap.apply(Engine.LSM.open(DaoOptions.builder(hints).build()));
        return new HintedHandoff(dao, new HybridClock(System::currentTimeMillis, ClockLease.open(hints)), NODES, replicas,
                detector, options, System::currentTimeMillis);
    }

    /** A store whose properties report {@code extra} more bytes in files than it holds, as tombstones would. */
    private static final class HeavierDao extends ForwardingDao {
        volatile long extra;

        HeavierDao(Dao store) {
            super(store);
        }

        @Override
        public DaoProperties properties() {
            DaoProperties p = super.properties();
            return new DaoProperties(p.memtableBytes(), p.frozenMemtables(), p.tableBytes() + extra, p.tableEntries(), p.tablesPerLevel(),
                    p.compactionsPending(), p.compactionDebtBytes(), p.flushes(), p.flushedBytes(), p.compactions(), p.compactedBytes(),
                    p.backgroundErrors(), p.writeStalls(), p.writeStallNanos(), p.walSyncs(), p.bloomNegatives(), p.blockCache());
        }
    }

    private ReplicaCoordinator coordinator(HintedHandoff hints) {
        return ReplicaCoordinator.builder(Partitioners.create("ring", NODES), replicas, new HybridClock())
                .options(ReplicationOptions.builder().readRepair(ReadRepair.OFF).build())
                .failureDetector(detector).hintedHandoff(hints).build();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(10);
        }
    }

    private void takeDown(int node) {
        stores[node].failure = new IOException("node " + NODES.get(node) + " is down");
        for (int i = 0; i < FailureDetector.FAILURES_TO_DOWN; i++) {
            detector.failed(node, stores[node].failure);
        }
    }

    @Test
    void replaySlowsToAHintAPeriodWhileTheTargetAnswersLateAndSpeedsUpOnceItAnswersQuickly() throws Exception {
        AtomicLong delayMillis = new AtomicLong(150);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        Replica late = new Replica() {
            @Override
            public CompletionStage<Entry> get(byte[] key) {
                return replicas.get(2).get(key);
            }

            @Override
            public CompletionStage<Void> upsert(Entry entry) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                timer.schedule(() -> replicas.get(2).upsert(entry).whenComplete((ok, error) -> done.complete(null)),
                        delayMillis.get(), TimeUnit.MILLISECONDS);
                return done;
            }
        };
        List<Replica> targets = List.of(replicas.get(0), replicas.get(1), late);
        FailureDetector watching = new FailureDetector(NODES, targets, 0, Duration.ofSeconds(1), System::currentTimeMillis);
        Path hints = dir.resolve("hints");
        long cap = 100_000;
        handoff = new HintedHandoff(Engine.LSM.open(DaoOptions.builder(hints).build()),
                new HybridClock(System::currentTimeMillis, ClockLease.open(hints)), NODES, targets, watching,
                ReplicationOptions.builder().hintReplayBytesPerSecond(cap).build(), System::currentTimeMillis);
        HybridClock clock = new HybridClock();
        for (int i = 0; i < 300; i++) {
            handoff.hint("c", Entry.value(bytes("k" + i), new byte[100], clock.now(), Entry.NEVER));
        }
        await("300 hints kept", () -> handoff.pendingHints("c") == 300);
        try {
            handoff.start();
            await("replay backs off to its floor", () -> handoff.replayBytesPerSecond("c") <= 10);
            long pending = handoff.pendingHints("c");
            await("replay goes on at the floor", () -> handoff.pendingHints("c") < pending);
            assertTrue(handoff.pendingHints("c") > 0, "still hints to deliver at a hint per period");
            delayMillis.set(0);
            await("every hint is delivered once the target answers quickly", () -> handoff.pendingHints("c") == 0);
            assertTrue(handoff.replayBytesPerSecond("c") > 10, "the pace grew again: " + handoff.replayBytesPerSecond("c"));
            assertTrue(stores[2].get(bytes("k299")) != null, "the last hint reached the target");
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void writesAReplicaMissedAreKeptAcrossARestartAndReplayedWhenItIsBack() throws Exception {
        handoff = open(ReplicationOptions.defaults());
        ReplicaCoordinator coordinator = coordinator(handoff);
        takeDown(2);
        for (int i = 0; i < 50; i++) {
            coordinator.put(bytes("k" + i), bytes("v" + i), Quorum.of(2, 3, 3)).toCompletableFuture().get();
        }
        coordinator.delete(bytes("k7"), Quorum.of(2, 3, 3)).toCompletableFuture().get();
        await("51 hints are kept", () -> handoff.pendingHints(2) == 51);
        assertEquals(0, handoff.pendingHints(1));
        handoff.close();
        handoff = open(ReplicationOptions.defaults());
        assertEquals(51, handoff.pendingHints(2), "hints survive a restart of their coordinator");
        handoff.start();
        stores[2].failure = null;
        detector.answered(2);
        await("every hint is delivered", () -> handoff.pendingHints(2) == 0);
        for (int i = 0; i < 50; i++) {
            Entry stored = stores[2].get(bytes("k" + i));
            if (i == 7) {
                assertTrue(stored.isTombstone(), "the delete was hinted too");
            } else {
                assertEquals("v" + i, new String(stored.value(), StandardCharsets.UTF_8));
            }
        }
        assertEquals(51, handoff.counters().replayed);
        assertEquals(0, handoff.pendingHintBytes(2));
    }

    @Test
    void aHintRefusedAsSentOnAnOlderMapIsKeptAndItsNodeIsNotTakenForDown() throws Exception {
        AtomicBoolean onNewerMap = new AtomicBoolean(true);
        AtomicInteger refusals = new AtomicInteger();
        Replica newer = new Replica() {
            @Override
            public CompletionStage<Entry> get(byte[] key) {
                return replicas.get(2).get(key);
            }

            @Override
            public CompletionStage<Void> upsert(Entry entry) {
                if (onNewerMap.get()) {
                    refusals.incrementAndGet();
                    return CompletableFuture.failedFuture(new StaleEpochException("moved since epoch 1", 2));
                }
                return replicas.get(2).upsert(entry);
            }

            @Override
            public CompletionStage<Void> ping() {
                return CompletableFuture.completedFuture(null);
            }
        };
        List<Replica> fenced = List.of(replicas.get(0), replicas.get(1), newer);
        FailureDetector fencedDetector = new FailureDetector(NODES, fenced, 0, Duration.ofSeconds(1), System::currentTimeMillis);
        Path hints = dir.resolve("hints");
        handoff = new HintedHandoff(Engine.LSM.open(DaoOptions.builder(hints).build()),
                new HybridClock(System::currentTimeMillis, ClockLease.open(hints)), NODES, fenced, fencedDetector,
                ReplicationOptions.defaults(), System::currentTimeMillis).start();
        Entry entry = Entry.value(bytes("k"), bytes("v"), new HybridClock().now(), Entry.NEVER);
        handoff.hint("c", entry);
        await("the hint is kept", () -> handoff.pendingHints(2) == 1);
        await("replays refused more times than take a node down",
                () -> refusals.get() > FailureDetector.FAILURES_TO_DOWN);
        assertEquals(PeerState.UP, fencedDetector.state(2), "a refusal is an answer");
        assertEquals(1, handoff.pendingHints(2), "a refused hint is kept");

        onNewerMap.set(false);
        await("the hint is delivered once the node takes it", () -> handoff.pendingHints(2) == 0);
        assertEquals("v", new String(stores[2].get(bytes("k")).value(), StandardCharsets.UTF_8));
        fencedDetector.close();
    }

    @Test
    void theHintsOfANodeThatLeftAreDroppedAndCountedAndANewNodeGetsHints() throws Exception {
        handoff = open(ReplicationOptions.defaults());
        ReplicaCoordinator coordinator = coordinator(handoff);
        takeDown(2);
        for (int i = 0; i < 20; i++) {
            coordinator.put(bytes("k" + i), bytes("v" + i), Quorum.of(2, 3, 3)).toCompletableFuture().get();
        }
        await("20 hints are kept", () -> handoff.pendingHints("c") == 20);
        // The map changes: c leaves, d joins (it stands on c's store, which still fails).
        List<String> next = List.of("a", "b", "d");
        List<Replica> nextReplicas = List.of(replicas.get(0), replicas.get(1), replicas.get(2));
        FailureDetector nextDetector = new FailureDetector(next, nextReplicas, 0, Duration.ofSeconds(1), System::currentTimeMillis);
        handoff.follow(next, nextReplicas, nextDetector);
        await("c's hints are dropped", () -> handoff.pendingHints("c") == 0);
        assertEquals(20, handoff.counters().droppedNodeLeft);
        handoff.hint("c", Entry.value(bytes("late"), bytes("x"), 1));
        assertEquals(21, handoff.counters().droppedNodeLeft, "a hint for a node that left is dropped at once");
        handoff.hint(2, Entry.value(bytes("new"), bytes("y"), new HybridClock().now()));
        await("d gets a hint", () -> handoff.pendingHints("d") == 1);
        handoff.start();
        stores[2].failure = null;
        await("d's hint is delivered", () -> handoff.pendingHints("d") == 0);
        assertEquals("y", new String(stores[2].get(bytes("new")).value(), StandardCharsets.UTF_8));
        assertEquals(1, handoff.counters().replayed, "c's hints were never replayed");
        nextDetector.close();
    }

    @Test
    void aHintForAKeyItsNodeNoLongerHoldsIsDroppedNotDelivered() throws Exception {
        handoff = open(ReplicationOptions.defaults());
        ReplicaCoordinator coordinator = coordinator(handoff);
        takeDown(2);
        for (int i = 0; i < 20; i++) {
            coordinator.put(bytes("k" + i), bytes("v" + i), Quorum.of(2, 3, 3)).toCompletableFuture().get();
        }
        await("20 hints are kept", () -> handoff.pendingHints(2) == 20);
        // The map moved the even keys away from c (its cleanup dropped them): their hints must not bring them back.
        handoff.deliverOnlyWhere((node, key) -> !node.equals("c")
                || Integer.parseInt(new String(key, StandardCharsets.UTF_8).substring(1)) % 2 == 1);
        handoff.start();
        stores[2].failure = null;
        detector.answered(2);
        await("every hint is delivered or dropped", () -> handoff.pendingHints(2) == 0);
        for (int i = 0; i < 20; i++) {
            Entry stored = stores[2].get(bytes("k" + i));
            if (i % 2 == 0) {
                assertNull(stored, "k" + i + " is not c's any more: its hint was not delivered");
            } else {
                assertEquals("v" + i, new String(stored.value(), StandardCharsets.UTF_8));
            }
        }
        assertEquals(10, handoff.counters().droppedNotReplica);
        assertEquals(10, handoff.counters().replayed);
    }

    @Test
    void aHintKeepsItsWritesExpiryAcrossARestartAndReplay() throws Exception {
        handoff = open(ReplicationOptions.defaults());
        ReplicaCoordinator coordinator = coordinator(handoff);
        takeDown(2);
        long expiresAt = System.currentTimeMillis() + 3_600_000;
        long expired = System.currentTimeMillis() - 1;
        coordinator.put(bytes("ttl"), bytes("soon gone"), expiresAt, Quorum.of(2, 3, 3)).toCompletableFuture().get();
        coordinator.put(bytes("gone"), bytes("already"), expired, Quorum.of(2, 3, 3)).toCompletableFuture().get();
        coordinator.put(bytes("kept"), bytes("forever"), Quorum.of(2, 3, 3)).toCompletableFuture().get();
        await("3 hints are kept", () -> handoff.pendingHints(2) == 3);
        handoff.close();
        handoff = open(ReplicationOptions.defaults());
        handoff.start();
        stores[2].failure = null;
        detector.answered(2);
        await("every hint is delivered", () -> handoff.pendingHints(2) == 0);
        Entry ttl = stores[2].get(bytes("ttl"));
        assertEquals("soon gone", new String(ttl.value(), StandardCharsets.UTF_8));
        assertEquals(expiresAt, ttl.expiresAtMillis(), "the replayed write expires when the original does");
        assertEquals(stores[0].get(bytes("ttl")), ttl, "the replayed version is the one the live replicas hold");
        Entry gone = stores[2].get(bytes("gone"));
        assertEquals(expired, gone.expiresAtMillis());
        assertTrue(gone.asOf(System.currentTimeMillis()).isTombstone(), "an expired write stays expired after replay");
        assertEquals(Entry.NEVER, stores[2].get(bytes("kept")).expiresAtMillis());
    }

    @Test
    void aNodeDownLongerThanTheWindowGetsNoNewHints() throws Exception {
        AtomicClock wall = new AtomicClock();
        FailureDetector ownDetector = new FailureDetector(NODES, replicas, 0, Duration.ofSeconds(1), wall::now);
        Path hints = dir.resolve("hints");
        handoff = new HintedHandoff(Engine.LSM.open(DaoOptions.builder(hints).build()),
                new HybridClock(System::currentTimeMillis, ClockLease.open(hints)), NODES, replicas, ownDetector,
                ReplicationOptions.builder().hintWindow(Duration.ofMinutes(1)).build(), wall::now);
        for (int i = 0; i < FailureDetector.FAILURES_TO_DOWN; i++) {
            ownDetector.failed(1, new IOException("down"));
        }
        handoff.hint(1, Entry.value(bytes("in"), bytes("v"), 1L << 16));
        wall.advance(Duration.ofMinutes(2));
        handoff.hint(1, Entry.value(bytes("past"), bytes("v"), 2L << 16));
        await("the first hint is kept", () -> handoff.pendingHints(1) == 1);
        assertEquals(1, handoff.counters().droppedPastWindow);
    }

    @Test
    void hintsForOneNodeStayWithinTheByteBound() throws Exception {
        handoff = open(ReplicationOptions.builder().maxHintBytes(200).build());
        takeDown(1);
        long now = new HybridClock().now();
        for (int i = 0; i < 10; i++) {
            handoff.hint(1, Entry.value(bytes("k" + i), new byte[50], now + i));
        }
        await("ten hints are stored or dropped", () -> {
            HintedHandoff.Counters c = handoff.counters();
            return c.stored + c.droppedFull == 10;
        });
        assertTrue(handoff.counters().droppedFull > 0);
        assertTrue(handoff.pendingHintBytes(1) < 200 + 100, "bounded: " + handoff.pendingHintBytes(1));
    }

    /**
     * Delivered hints leave tombstones on disk until compactions drop them: the bound on the store
     * counts its files, not only the hints waiting, at one node's bound for every other node.
     */
    @Test
    void theHintStoreTakesNoHintOnceItsFilesReachTheBoundWhateverIsWaiting() throws Exception {
        HeavierDao[] store = new HeavierDao[1];
        handoff = open(ReplicationOptions.builder().maxHintBytes(10_000).build(), dao -> store[0] = new HeavierDao(dao));
        takeDown(1);
        long now = new HybridClock().now();
        handoff.hint(1, Entry.value(bytes("before"), new byte[50], now));
        await("the first hint is kept", () -> handoff.pendingHints(1) == 1);
        store[0].extra = 2 * 10_000;
        for (int i = 0; i < 5; i++) {
            handoff.hint(1, Entry.value(bytes("k" + i), new byte[50], now + 1 + i));
        }
        await("five more hints are dropped", () -> handoff.counters().droppedFull == 5);
        assertEquals(1, handoff.pendingHints(1), "far below one node's bound, but the store is full");
        store[0].extra = 0;
        handoff.hint(1, Entry.value(bytes("after"), new byte[50], now + 10));
        await("a hint is kept once the files shrink", () -> handoff.pendingHints(1) == 2);
    }

    @Test
    void hintsOlderThanTheTombstoneGraceAreDroppedNeverReplayed() throws Exception {
        handoff = open(ReplicationOptions.builder().hintWindow(Duration.ofSeconds(1))
                .tombstoneGrace(Duration.ofSeconds(2)).build());
        takeDown(1);
        long old = (System.currentTimeMillis() - 60_000) << HybridClock.LOGICAL_BITS;
        handoff.hint(1, Entry.value(bytes("stale"), bytes("zombie"), old));
        handoff.hint(1, Entry.value(bytes("fresh"), bytes("v"), new HybridClock().now()));
        await("two hints kept", () -> handoff.pendingHints(1) == 2);
        handoff.start();
        stores[1].failure = null;
        detector.answered(1);
        await("both hints handled", () -> handoff.pendingHints(1) == 0);
        assertNull(stores[1].get(bytes("stale")), "an expired hint is never delivered");
        assertEquals("v", new String(stores[1].get(bytes("fresh")).value(), StandardCharsets.UTF_8));
        assertEquals(1, handoff.counters().expired);
    }

    @Test
    void replayIsThrottledToItsRate() throws Exception {
        handoff = open(ReplicationOptions.builder().hintReplayBytesPerSecond(1_000).build());
        takeDown(1);
        long now = new HybridClock().now();
        for (int i = 0; i < 20; i++) {
            handoff.hint(1, Entry.value(bytes("k" + i), new byte[50], now + i));
        }
        await("twenty hints kept", () -> handoff.pendingHints(1) == 20);
        long bytes = handoff.pendingHintBytes(1);
        assertTrue(bytes > 1_200, "the hints weigh " + bytes + " bytes");
        long start = System.nanoTime();
        handoff.start();
        stores[1].failure = null;
        detector.answered(1);
        await("every hint is delivered", () -> handoff.pendingHints(1) == 0);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // At 1,000 bytes/s, a 100 ms period sends 100 bytes' worth: about one hint and a half.
        assertTrue(millis >= bytes * 1000 / 1_000 / 2, bytes + " bytes replayed in " + millis + " ms: not throttled");
    }

    @Test
    void replayKeepsToItsLaneOfTheBackgroundBudgetAndCountsWhatItDelivered() throws Exception {
        handoff = open(ReplicationOptions.defaults());
        BudgetLane lane = BackgroundBudget.fixed().lane(BackgroundWork.HINTS, 1_000);
        handoff.drawReplayFrom(lane);
        takeDown(1);
        long now = new HybridClock().now();
        for (int i = 0; i < 20; i++) {
            handoff.hint(1, Entry.value(bytes("k" + i), new byte[50], now + i));
        }
        await("twenty hints kept", () -> handoff.pendingHints(1) == 20);
        long bytes = handoff.pendingHintBytes(1);
        long start = System.nanoTime();
        handoff.start();
        stores[1].failure = null;
        detector.answered(1);
        await("every hint is delivered", () -> handoff.pendingHints(1) == 0);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis >= bytes * 1000 / 1_000 / 2, bytes + " bytes replayed in " + millis
                + " ms: at the replay rate, not the lane's share");
        assertEquals(bytes, lane.consumedBytes(), "the lane counts the bytes replayed");
    }

    /** A settable wall clock. */
    private static final class AtomicClock {
        private final java.util.concurrent.atomic.AtomicLong millis = new java.util.concurrent.atomic.AtomicLong(1_795_000_000_000L);

        long now() {
            return millis.get();
        }

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
        }
    }
}
