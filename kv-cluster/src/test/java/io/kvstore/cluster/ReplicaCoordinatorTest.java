package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicaCoordinatorTest {
    private static final byte[] KEY = "key".getBytes(StandardCharsets.UTF_8);
    private static final long WALL = 1_795_000_000_000L;

    private final Partitioner partitioner = Partitioners.create("ring", List.of("a", "b", "c"));
    private final int[] order = partitioner.replicas(KEY, 3);
    private final List<ManualReplica> replicas = List.of(new ManualReplica(), new ManualReplica(), new ManualReplica());
    private final AtomicLong wall = new AtomicLong(WALL);
    private final HybridClock clock = new HybridClock(wall::get);
    private final ReplicaCoordinator coordinator = coordinator(Duration.ofSeconds(30));

    private ReplicaCoordinator coordinator(Duration timeout) {
        return new ReplicaCoordinator(partitioner, new ArrayList<>(replicas), clock, timeout);
    }

    /** The replica holding the {@code rank}-th copy of {@link #KEY}. */
    private ManualReplica replica(int rank) {
        return replicas.get(order[rank]);
    }

    @Test
    void putGoesToTheFirstFromReplicasWithOneClockTimestamp() {
        CompletableFuture<Void> put = coordinator.put(KEY, bytes("v"), Quorum.of(1, 2, 3)).toCompletableFuture();
        assertEquals(1, replica(0).upserts.size());
        assertEquals(1, replica(1).upserts.size());
        assertEquals(0, replica(2).requests(), "a write stores exactly from copies");
        Entry sent = replica(0).upserts.get(0);
        assertSame(sent, replica(1).upserts.get(0));
        assertArrayEquals(bytes("v"), sent.value());
        assertEquals(WALL, HybridClock.millisOf(sent.timestamp()));
        assertFalse(put.isDone());
    }

    @Test
    void putCompletesAsSoonAsAckReplicasStoredItWhileAnotherNeverAnswers() throws Exception {
        CompletableFuture<Void> put = coordinator.put(KEY, bytes("v"), Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(2).lastUpsert().complete(null);
        assertFalse(put.isDone());
        replica(0).lastUpsert().complete(null);
        assertTrue(put.isDone());
        assertNull(put.get());
    }

    @Test
    void aWriteWithAPendingReplicaNeedsOneMoreAcknowledgementFromAnyOfThem() throws Exception {
        ManualReplica pending = new ManualReplica();
        Entry entry = Entry.value(KEY, bytes("v"), clock.now(), Entry.NEVER);
        CompletableFuture<Void> put = coordinator.write(entry, Quorum.of(2, 3, 3), List.of(pending), List.of("d"))
                .toCompletableFuture();
        assertSame(entry, pending.upserts.get(0), "the pending node gets the same version");
        replica(0).lastUpsert().complete(null);
        replica(1).lastUpsert().complete(null);
        assertFalse(put.isDone(), "ack 2 plus one pending: two acknowledgements are not enough");
        replica(2).lastUpsert().complete(null);
        assertTrue(put.isDone(), "every current replica answered: a pending node that has not yet does not hold the write");
        assertNull(put.get());
    }

    @Test
    void aWriteRefusedAsStaleIsWrittenAgainOnTheNewerMapNotHintedEvenWhenItSucceeds() throws Exception {
        List<Entry> hinted = new ArrayList<>();
        List<Long> again = new ArrayList<>();
        ReplicaCoordinator fenced = ReplicaCoordinator.builder(partitioner, new ArrayList<>(replicas), clock)
                .timeout(Duration.ofSeconds(30))
                .options(ReplicationOptions.builder().replicationFactor(3).hints(true).build())
                .hintedHandoff((node, entry) -> hinted.add(entry))
                .staleWrites((entry, epoch) -> again.add(epoch))
                .build();
        ManualReplica pending = new ManualReplica();
        Entry entry = Entry.value(KEY, bytes("v"), clock.now(), Entry.NEVER);
        CompletableFuture<Void> put = fenced.write(entry, Quorum.of(2, 3, 3), List.of(pending), List.of("d"))
                .toCompletableFuture();
        replica(0).lastUpsert().complete(null);
        replica(1).lastUpsert().complete(null);
        replica(2).lastUpsert().completeExceptionally(new StaleEpochException("moved", 7));
        pending.lastUpsert().complete(null);
        assertTrue(put.isDone());
        assertNull(put.get(), "three of four acknowledged: the write succeeds although one replica refused it");
        assertEquals(List.of(7L), again, "the refused write goes to the newer map's replicas");
        assertTrue(hinted.isEmpty(), "a refusal is not a failure to hint");

        CompletableFuture<Void> second = fenced.write(entry, Quorum.of(2, 3, 3), List.of(pending), List.of("d"))
                .toCompletableFuture();
        pending.lastUpsert().completeExceptionally(new StaleEpochException("moved", 8));
        replica(0).lastUpsert().complete(null);
        replica(1).lastUpsert().complete(null);
        replica(2).lastUpsert().complete(null);
        assertNull(second.get(), "the current replicas make up the raised ack");
        assertEquals(List.of(7L, 8L), again, "a pending replica's refusal too: it is a replica only the newer map names");
        assertTrue(hinted.isEmpty());
        fenced.close();
    }

    @Test
    void aDrainingReplicaIsNotAskedItsWritesAreHintedAndTheOthersMakeTheQuorum() throws Exception {
        List<Integer> hintedNodes = new ArrayList<>();
        FailureDetector detector = new FailureDetector(partitioner.nodes(), new ArrayList<>(replicas), -1,
                Duration.ofSeconds(1), wall::get);
        ReplicaCoordinator aware = ReplicaCoordinator.builder(partitioner, new ArrayList<>(replicas), clock)
                .timeout(Duration.ofSeconds(30))
                .options(ReplicationOptions.builder().replicationFactor(3).hints(true).build())
                .hintedHandoff((node, entry) -> hintedNodes.add(node))
                .failureDetector(detector)
                .build();
        detector.draining(order[0]);
        CompletableFuture<Void> put = aware.put(KEY, bytes("v"), Quorum.of(2, 3, 3)).toCompletableFuture();
        assertEquals(0, replica(0).requests(), "a draining node is sent nothing");
        assertEquals(List.of(order[0]), hintedNodes, "its write waits as a hint for when it serves again");
        replica(1).lastUpsert().complete(null);
        assertFalse(put.isDone());
        replica(2).lastUpsert().complete(null);
        assertNull(put.get(), "the other two replicas make the quorum");

        CompletableFuture<Entry> get = aware.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        assertEquals(0, replica(0).requests());
        replica(1).lastGet().complete(null);
        replica(2).lastGet().complete(null);
        assertNull(get.get(), "a read does not wait for the draining node either");

        ExecutionException all = assertThrows(ExecutionException.class,
                () -> aware.put(KEY, bytes("w"), Quorum.of(3, 3, 3)).toCompletableFuture().get(5, TimeUnit.SECONDS),
                "a request needing every replica fails at once rather than at its timeout");
        assertInstanceOf(NotEnoughReplicasException.class, all.getCause());
        assertTrue(all.getCause().getMessage().contains("draining"), all.getCause().getMessage());
        aware.close();
    }

    @Test
    void aPendingReplicaCountsLikeAnyOtherTowardTheRaisedAck() throws Exception {
        ManualReplica pending = new ManualReplica();
        Entry entry = Entry.value(KEY, bytes("v"), clock.now(), Entry.NEVER);
        CompletableFuture<Void> put = coordinator.write(entry, Quorum.of(2, 3, 3), List.of(pending), List.of("d"))
                .toCompletableFuture();
        replica(0).lastUpsert().complete(null);
        pending.lastUpsert().complete(null);
        assertFalse(put.isDone());
        replica(2).lastUpsert().complete(null);
        assertTrue(put.isDone());
        assertNull(put.get());
    }

    @Test
    void aWriteFailsOnceAckPlusPendingCannotBeMetNamingThePendingNode() {
        ManualReplica pending = new ManualReplica();
        Entry entry = Entry.value(KEY, bytes("v"), clock.now(), Entry.NEVER);
        CompletableFuture<Void> put = coordinator.write(entry, Quorum.of(2, 3, 3), List.of(pending), List.of("d"))
                .toCompletableFuture();
        pending.lastUpsert().completeExceptionally(new IOException("refused"));
        replica(0).lastUpsert().complete(null);
        replica(1).lastUpsert().complete(null);
        assertFalse(put.isDone(), "3 of 4 can still answer");
        replica(2).lastUpsert().completeExceptionally(new IOException("down"));
        ExecutionException e = assertThrows(ExecutionException.class, put::get);
        NotEnoughReplicasException cause = assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
        assertTrue(cause.getMessage().contains("needed 3 of 4"), cause.getMessage());
        assertTrue(cause.getMessage().contains("d (pending)"), cause.getMessage());
    }

    @Test
    void pendingReplicasMustComeWithTheirNames() {
        Entry entry = Entry.value(KEY, bytes("v"), clock.now(), Entry.NEVER);
        assertThrows(IllegalArgumentException.class,
                () -> coordinator.write(entry, Quorum.of(2, 3, 3), List.of(new ManualReplica()), List.of()));
    }

    @Test
    void deleteSendsATombstoneWithAFreshTimestamp() throws Exception {
        long before = clock.now();
        CompletableFuture<Void> delete = coordinator.delete(KEY, Quorum.of(1, 1, 3)).toCompletableFuture();
        Entry tombstone = replica(0).upserts.get(0);
        assertTrue(tombstone.isTombstone());
        assertArrayEquals(KEY, tombstone.key());
        assertTrue(tombstone.timestamp() > before);
        replica(0).lastUpsert().complete(null);
        assertNull(delete.get());
    }

    @Test
    void replicasRefusingAsOverloadedFailTheQuorumAtOnceTheirWritesAreHintedAndTheyAreNotTakenForDown() {
        List<Integer> hintedNodes = new ArrayList<>();
        FailureDetector detector = new FailureDetector(partitioner.nodes(), new ArrayList<>(replicas), -1,
                Duration.ofSeconds(1), wall::get);
        ReplicaCoordinator aware = ReplicaCoordinator.builder(partitioner, new ArrayList<>(replicas), clock)
                .timeout(Duration.ofSeconds(30))
                .options(ReplicationOptions.builder().replicationFactor(3).hints(true).build())
                .hintedHandoff((node, entry) -> hintedNodes.add(node))
                .failureDetector(detector)
                .build();
        for (int attempt = 0; attempt < 5; attempt++) {
            CompletableFuture<Void> put = aware.put(KEY, bytes("v"), Quorum.of(2, 3, 3)).toCompletableFuture();
            replica(0).lastUpsert().completeExceptionally(new ReplicaOverloadedException("a is overloaded"));
            replica(1).lastUpsert().completeExceptionally(new ReplicaOverloadedException("b is overloaded"));
            assertTrue(put.isDone(), "failed once the quorum became impossible, not at the timeout");
            NotEnoughReplicasException e = failure(put);
            assertTrue(e.overloaded(), e.getMessage());
            replica(2).lastUpsert().complete(null);
        }
        assertEquals(PeerState.UP, detector.state(order[0]), "a replica that refuses answers: it is up");
        assertEquals(10, hintedNodes.size(), "every refused write is hinted");

        CompletableFuture<Void> unsent = aware.put(KEY, bytes("w"), Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).lastUpsert().completeExceptionally(new ReplicaOverloadedException("a is overloaded"));
        replica(1).lastUpsert().completeExceptionally(new IOException("connection refused by b"));
        assertTrue(failure(unsent).overloaded(), "one refusal for want of capacity makes the failure an overload");
        CompletableFuture<Void> down = aware.put(KEY, bytes("x"), Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).lastUpsert().completeExceptionally(new IOException("connection refused by a"));
        replica(1).lastUpsert().completeExceptionally(new IOException("connection refused by b"));
        assertFalse(failure(down).overloaded(), "failures that are no refusals are no overload: a 504");
        aware.close();
    }

    @Test
    void failsAsSoonAsAckHasBecomeImpossible() {
        CompletableFuture<Void> put = coordinator.put(KEY, bytes("v"), Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).lastUpsert().completeExceptionally(new IOException("disk full on a"));
        assertFalse(put.isDone(), "two replicas can still answer");
        replica(1).lastUpsert().completeExceptionally(new IOException("connection refused by b"));
        assertTrue(put.isDone(), "did not wait for the third replica once 2 of 3 became impossible");
        NotEnoughReplicasException e = failure(put);
        assertEquals(2, e.needed());
        assertEquals(0, e.got());
        assertEquals(2, e.failures().size());
        assertInstanceOf(IOException.class, e.getCause());
        assertTrue(e.getMessage().contains("needed 2 of 3 replicas, got 0; 2 failed"), e.getMessage());
        assertTrue(e.getMessage().contains("disk full on a"), e.getMessage());
    }

    @Test
    void answersAfterTheDecisionAreIgnored() throws Exception {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(1, 3, 3)).toCompletableFuture();
        Entry first = Entry.value(KEY, bytes("first"), 10);
        replica(1).lastGet().complete(first);
        replica(0).lastGet().complete(Entry.value(KEY, bytes("newer but late"), 20));
        replica(2).lastGet().completeExceptionally(new IOException("late failure"));
        assertSame(first, get.get());
    }

    @Test
    void timesOutWhenReplicasNeverAnswer() throws Exception {
        ReplicaCoordinator quick = coordinator(Duration.ofMillis(50));
        CompletableFuture<Entry> get = quick.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).lastGet().complete(null);
        ExecutionException e = assertThrows(ExecutionException.class, () -> get.get(10, TimeUnit.SECONDS));
        NotEnoughReplicasException notEnough = assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
        assertEquals(1, notEnough.got());
        assertInstanceOf(TimeoutException.class, notEnough.getCause());
        assertTrue(notEnough.getMessage().contains("timed out after 50 ms"), notEnough.getMessage());
    }

    @Test
    void aSlowReplicaDoesNotDelayARequestThatHasItsAnswers() throws Exception {
        ReplicaCoordinator quick = coordinator(Duration.ofMillis(50));
        CompletableFuture<Void> put = quick.put(KEY, bytes("v"), Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).lastUpsert().complete(null);
        replica(1).lastUpsert().complete(null);
        assertTrue(put.isDone());
        assertNull(put.get());
    }

    @Test
    void readReturnsTheNewestOfTheAnswersWhateverTheirOrder() throws Exception {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(3, 3, 3)).toCompletableFuture();
        Entry newest = Entry.value(KEY, bytes("new"), 300);
        replica(2).lastGet().complete(newest);
        replica(0).lastGet().complete(Entry.value(KEY, bytes("old"), 100));
        assertFalse(get.isDone());
        replica(1).lastGet().complete(null);
        assertSame(newest, get.get());
    }

    @Test
    void readDecidesOnTheFirstAckAnswersOnly() throws Exception {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        Entry older = Entry.value(KEY, bytes("older"), 100);
        replica(1).lastGet().complete(older);
        replica(2).lastGet().complete(null);
        assertSame(older, get.get());
        replica(0).lastGet().complete(Entry.value(KEY, bytes("newest"), 500));
        assertSame(older, get.get());
    }

    @Test
    void aNewerTombstoneHidesAnOlderValue() throws Exception {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).lastGet().complete(Entry.value(KEY, bytes("v"), 100));
        replica(1).lastGet().complete(Entry.tombstone(KEY, 200));
        Entry result = get.get();
        assertTrue(result.isTombstone());
        assertEquals(200, result.timestamp());
    }

    @Test
    void aNewerValueWinsOverAnOlderTombstone() throws Exception {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 2, 3)).toCompletableFuture();
        replica(1).lastGet().complete(Entry.tombstone(KEY, 100));
        replica(0).lastGet().complete(Entry.value(KEY, bytes("back"), 200));
        assertArrayEquals(bytes("back"), get.get().value());
    }

    @Test
    void readOfAKeyNoReplicaHoldsIsNull() throws Exception {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).lastGet().complete(null);
        replica(2).lastGet().complete(null);
        assertNull(get.get());
    }

    @Test
    void equalTimestampsResolveTheSameWayWhateverTheOrder() {
        Entry value = Entry.value(KEY, bytes("a"), 7);
        Entry bigger = Entry.value(KEY, bytes("b"), 7);
        Entry tombstone = Entry.tombstone(KEY, 7);
        assertSame(tombstone, ReplicaCoordinator.newer(value, tombstone));
        assertSame(tombstone, ReplicaCoordinator.newer(tombstone, value));
        assertSame(bigger, ReplicaCoordinator.newer(value, bigger));
        assertSame(bigger, ReplicaCoordinator.newer(bigger, value));
        assertNull(ReplicaCoordinator.newer(null, null));
    }

    @Test
    void readTimestampsAdvanceTheClockSoALaterWriteSupersedesThem() throws Exception {
        long remote = (WALL + 60_000) << HybridClock.LOGICAL_BITS;
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(1, 1, 3)).toCompletableFuture();
        replica(0).lastGet().complete(Entry.value(KEY, bytes("from a node ahead"), remote));
        get.get();
        coordinator.put(KEY, bytes("overwrite"), Quorum.of(1, 1, 3));
        assertTrue(replica(0).upserts.get(0).timestamp() > remote);
    }

    @Test
    void aReplicaThatThrowsInsteadOfFailingItsStageCountsAsAFailure() {
        Replica throwing = new Replica() {
            @Override
            public CompletionStage<Entry> get(byte[] key) {
                throw new IllegalStateException("closed");
            }

            @Override
            public CompletionStage<Void> upsert(Entry entry) {
                throw new IllegalStateException("closed");
            }
        };
        Partitioner single = Partitioners.create("modn", List.of("only"));
        ReplicaCoordinator coordinator = new ReplicaCoordinator(single, List.of(throwing), clock, Duration.ofSeconds(5));
        NotEnoughReplicasException e = failure(coordinator.put(KEY, bytes("v"), Quorum.defaults(1)).toCompletableFuture());
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getMessage().contains("only"), "names the failed node: " + e.getMessage());
    }

    @Test
    void failuresArriveUnwrappedFromCompletionExceptions() {
        CompletableFuture<Void> put = coordinator.put(KEY, bytes("v"), Quorum.of(1, 1, 3)).toCompletableFuture();
        replica(0).lastUpsert().completeExceptionally(new java.util.concurrent.CompletionException(new IOException("io")));
        assertInstanceOf(IOException.class, failure(put).getCause());
    }

    @Test
    void aQuorumLargerThanTheClusterIsRejected() {
        assertThrows(InvalidQuorumException.class, () -> coordinator.get(KEY, Quorum.of(1, 4, 4)));
    }

    @Test
    void anAnswerInLineDoesNotRunTheCallersContinuationBeforeEveryReplicaWasAsked() throws Exception {
        List<Replica> inLineFirst = new ArrayList<>(replicas);
        Replica inLine = new Replica() {
            @Override
            public CompletionStage<Entry> get(byte[] key) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletionStage<Void> upsert(Entry entry) {
                return CompletableFuture.completedFuture(null);
            }
        };
        inLineFirst.set(order[0], inLine);
        ReplicaCoordinator coordinator = new ReplicaCoordinator(partitioner, inLineFirst, clock, Duration.ofSeconds(30));
        List<Integer> askedWhenDone = new ArrayList<>();
        CompletableFuture<Void> put = coordinator.put(KEY, bytes("v"), Quorum.of(1, 3, 3)).toCompletableFuture()
                .thenRun(() -> askedWhenDone.add(replica(1).requests() + replica(2).requests()));
        assertTrue(put.isDone(), "decided in line, without a timer");
        assertEquals(List.of(2), askedWhenDone, "both other replicas were sent the write before the caller heard back");
    }

    @Test
    void aClosedCoordinatorRejectsNewRequestsButFinishesThoseInFlight() throws Exception {
        CompletableFuture<Void> inFlight = coordinator.put(KEY, bytes("v"), Quorum.of(1, 1, 3)).toCompletableFuture();
        coordinator.close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> coordinator.get(KEY, Quorum.of(1, 1, 3)).toCompletableFuture().get());
        assertInstanceOf(IllegalStateException.class, e.getCause());
        replica(0).lastUpsert().complete(null);
        assertNull(inFlight.get());
        assertEquals(3, coordinator.clusterSize());
    }

    @Test
    void constructionChecksItsArguments() {
        assertThrows(IllegalArgumentException.class,
                () -> new ReplicaCoordinator(partitioner, List.of(new ManualReplica()), clock, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class,
                () -> new ReplicaCoordinator(partitioner, new ArrayList<>(replicas), clock, Duration.ZERO));
    }

    private static NotEnoughReplicasException failure(CompletableFuture<?> future) {
        assertTrue(future.isCompletedExceptionally());
        ExecutionException e = assertThrows(ExecutionException.class, future::get);
        return assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
