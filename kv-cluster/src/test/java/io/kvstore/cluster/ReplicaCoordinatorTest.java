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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplicaCoordinatorTest {
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    private final List<ManualReplica> replicas = List.of(new ManualReplica(), new ManualReplica(), new ManualReplica());
    private final Partitioner partitioner = Partitioners.create("ring", List.of("a", "b", "c"));
    private final int[] order = partitioner.replicas(KEY, 3);
    private ReplicaCoordinator coordinator = coordinator(Duration.ofSeconds(30));

    private ReplicaCoordinator coordinator(Duration timeout) {
        return new ReplicaCoordinator(partitioner, new ArrayList<>(replicas), new HybridClock(), timeout);
    }

    @AfterEach
    void close() {
        coordinator.close();
    }

    /** The i-th replica of KEY in partitioner order. */
    private ManualReplica replica(int i) {
        return replicas.get(order[i]);
    }

    @Test
    void completesAsSoonAsAckReplicasAnsweredWithoutWaitingForTheSlowOne() {
        CompletableFuture<Void> put = coordinator.put(KEY, new byte[] {1}, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(2).upserts.get(0).complete(null);
        assertFalse(put.isDone());
        replica(0).upserts.get(0).complete(null);
        assertTrue(put.isDone() && !put.isCompletedExceptionally(), "two answers are enough; replica 1 never answers");
    }

    @Test
    void writesExactlyFromCopiesToThePrefixOfTheReplicaList() {
        coordinator.put(KEY, new byte[] {1}, Quorum.of(1, 2, 3));
        assertEquals(1, replica(0).written.size());
        assertEquals(1, replica(1).written.size());
        assertEquals(0, replica(2).written.size());
        assertSame(replica(0).written.get(0), replica(1).written.get(0), "one version, one timestamp");
    }

    @Test
    void failsAsSoonAsTheQuorumHasBecomeImpossible() {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).gets.get(0).completeExceptionally(new IllegalStateException("disk on fire"));
        assertFalse(get.isDone(), "one failure of three still allows two answers");
        replica(1).gets.get(0).completeExceptionally(new IllegalStateException("connection refused"));
        NotEnoughReplicasException e = failure(get);
        assertEquals(2, e.needed());
        assertEquals(0, e.succeeded());
        assertEquals(2, e.failed());
        assertTrue(e.getMessage().startsWith("GET: 0 of 2 required replicas answered (2 failed"), e.getMessage());
    }

    @Test
    void timesOutWhenReplicasNeverAnswer() {
        coordinator.close();
        coordinator = coordinator(Duration.ofMillis(50));
        CompletableFuture<Void> delete = coordinator.delete(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).upserts.get(0).complete(null);
        NotEnoughReplicasException e = failure(delete);
        assertEquals(1, e.succeeded());
        assertEquals(0, e.failed());
    }

    @Test
    void readReturnsTheNewestVersionWhateverOrderAnswersArriveIn() {
        Entry old = Entry.value(KEY, new byte[] {1}, 100);
        Entry newer = Entry.value(KEY, new byte[] {2}, 200);
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(3, 3, 3)).toCompletableFuture();
        replica(1).gets.get(0).complete(newer);
        replica(2).gets.get(0).complete(null);
        replica(0).gets.get(0).complete(old);
        assertSame(newer, get.join());
    }

    @Test
    void aNewerTombstoneWinsOverAnOlderValue() {
        Entry value = Entry.value(KEY, new byte[] {1}, 100);
        Entry tombstone = Entry.tombstone(KEY, 150);
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).gets.get(0).complete(value);
        replica(2).gets.get(0).complete(tombstone);
        assertTrue(get.join().isTombstone());
    }

    @Test
    void aKeyNoReplicaHoldsReadsAsNull() {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
        replica(0).gets.get(0).complete(null);
        replica(1).gets.get(0).complete(null);
        assertNull(get.join());
    }

    @Test
    void lateAnswersAfterCompletionAreIgnored() {
        CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(1, 3, 3)).toCompletableFuture();
        Entry first = Entry.value(KEY, new byte[] {1}, 100);
        replica(0).gets.get(0).complete(first);
        replica(1).gets.get(0).complete(Entry.value(KEY, new byte[] {2}, 900));
        replica(2).gets.get(0).completeExceptionally(new IllegalStateException("late failure"));
        assertSame(first, get.join(), "ack=1: the first answer decides");
    }

    @Test
    void aReplicaThatThrowsCountsAsOneFailure() {
        List<Replica> throwing = new ArrayList<>(replicas);
        throwing.set(order[0], new Replica() {
            @Override
            public java.util.concurrent.CompletionStage<Entry> get(byte[] key) {
                throw new IllegalStateException("bug in replica");
            }

            @Override
            public java.util.concurrent.CompletionStage<Void> upsert(Entry entry) {
                throw new IllegalStateException("bug in replica");
            }
        });
        try (ReplicaCoordinator c = new ReplicaCoordinator(partitioner, throwing, new HybridClock(), Duration.ofSeconds(5))) {
            CompletableFuture<Void> put = c.put(KEY, new byte[0], Quorum.of(2, 3, 3)).toCompletableFuture();
            replica(1).upserts.get(0).complete(null);
            replica(2).upserts.get(0).complete(null);
            assertTrue(put.isDone() && !put.isCompletedExceptionally());
        }
    }

    @Test
    void writesCarryIncreasingTimestampsFromTheClock() {
        coordinator.put(KEY, new byte[] {1}, Quorum.of(1, 1, 3));
        coordinator.delete(KEY, Quorum.of(1, 1, 3));
        List<Entry> written = replica(0).written;
        assertTrue(written.get(1).timestamp() > written.get(0).timestamp());
        assertArrayEquals(new byte[] {1}, written.get(0).value());
        assertTrue(written.get(1).isTombstone());
    }

    @Test
    void rejectsAQuorumLargerThanTheCluster() {
        assertThrows(InvalidQuorumException.class, () -> coordinator.get(KEY, Quorum.of(1, 4, 4)));
        assertThrows(IllegalArgumentException.class, () -> new ReplicaCoordinator(partitioner,
                List.of(new ManualReplica()), new HybridClock(), Duration.ofSeconds(1)));
    }

    private static NotEnoughReplicasException failure(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        return assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
    }
}
