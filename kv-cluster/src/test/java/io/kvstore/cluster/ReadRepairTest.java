package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
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
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Read repair on a coordinator whose replicas answer by hand: what it writes, to whom, and when it answers. */
class ReadRepairTest {
    private static final byte[] KEY = "key".getBytes(StandardCharsets.UTF_8);
    private static final Quorum TWO_OF_THREE = Quorum.of(2, 3, 3);

    private final Partitioner partitioner = Partitioners.create("ring", List.of("a", "b", "c"));
    private final int[] order = partitioner.replicas(KEY, 3);
    private final List<ManualReplica> replicas = List.of(new ManualReplica(), new ManualReplica(), new ManualReplica());
    private final HybridClock clock = new HybridClock();

    private ReplicaCoordinator coordinator(ReadRepair mode) {
        return ReplicaCoordinator.builder(partitioner, new ArrayList<>(replicas), clock)
                .timeout(Duration.ofSeconds(30))
                .options(ReplicationOptions.builder().readRepair(mode).hints(false).build())
                .build();
    }

    private ManualReplica replica(int rank) {
        return replicas.get(order[rank]);
    }

    private static Entry value(String text, long timestamp) {
        return Entry.value(KEY, text.getBytes(StandardCharsets.UTF_8), timestamp);
    }

    @Test
    void answersThatAgreeCostNoWriteAndNoWait() throws Exception {
        CompletableFuture<Entry> get = coordinator(ReadRepair.BLOCKING).get(KEY, TWO_OF_THREE).toCompletableFuture();
        replica(0).lastGet().complete(value("v", 10));
        replica(1).lastGet().complete(value("v", 10));
        assertTrue(get.isDone());
        assertEquals(10, get.get().timestamp());
        replica(2).lastGet().complete(value("v", 10));
        for (ManualReplica r : replicas) {
            assertEquals(0, r.upserts.size(), "no repair write");
        }
    }

    @Test
    void blockingAnswersOnlyOnceTheNewestVersionIsOnAckReplicas() throws Exception {
        CompletableFuture<Entry> get = coordinator(ReadRepair.BLOCKING).get(KEY, TWO_OF_THREE).toCompletableFuture();
        replica(0).lastGet().complete(value("new", 20));
        replica(1).lastGet().complete(null);
        assertFalse(get.isDone(), "the newest version is on one replica only");
        assertEquals(1, replica(1).upserts.size());
        assertEquals(20, replica(1).upserts.get(0).timestamp());
        assertEquals(0, replica(0).upserts.size(), "the replica holding it is not written");
        replica(1).lastUpsert().complete(null);
        assertTrue(get.isDone());
        assertArrayEquals("new".getBytes(StandardCharsets.UTF_8), get.get().value());
    }

    @Test
    void blockingFailsWhenTheRepairCannotReachAckReplicas() {
        CompletableFuture<Entry> get = coordinator(ReadRepair.BLOCKING).get(KEY, TWO_OF_THREE).toCompletableFuture();
        replica(0).lastGet().complete(value("new", 20));
        replica(1).lastGet().complete(value("old", 10));
        replica(2).lastGet().completeExceptionally(new IOException("down"));
        replica(1).lastUpsert().completeExceptionally(new IOException("disk full"));
        ExecutionException error = assertThrows(ExecutionException.class, get::get);
        assertInstanceOf(NotEnoughReplicasException.class, error.getCause());
    }

    @Test
    void aLateAnswerWithTheWinnerCountsTowardAck() throws Exception {
        CompletableFuture<Entry> get = coordinator(ReadRepair.BLOCKING).get(KEY, TWO_OF_THREE).toCompletableFuture();
        replica(0).lastGet().complete(value("new", 20));
        replica(1).lastGet().complete(value("old", 10));
        assertFalse(get.isDone());
        replica(2).lastGet().complete(value("new", 20));
        assertTrue(get.isDone(), "two replicas hold the newest version");
        assertEquals(20, get.get().timestamp());
    }

    @Test
    void aRepairedValueKeepsItsExpiry() throws Exception {
        CompletableFuture<Entry> get = coordinator(ReadRepair.BLOCKING).get(KEY, TWO_OF_THREE).toCompletableFuture();
        long expiresAt = System.currentTimeMillis() + 3_600_000;
        Entry expiring = Entry.value(KEY, "new".getBytes(StandardCharsets.UTF_8), 30, expiresAt);
        replica(0).lastGet().complete(value("old", 10));
        replica(1).lastGet().complete(expiring);
        assertEquals(expiresAt, replica(0).upserts.get(0).expiresAtMillis(), "the stale replica gets the expiry too");
        replica(0).lastUpsert().complete(null);
        assertEquals(expiring, get.get());
    }

    @Test
    void tombstonesAreRepairedToo() throws Exception {
        CompletableFuture<Entry> get = coordinator(ReadRepair.BLOCKING).get(KEY, TWO_OF_THREE).toCompletableFuture();
        replica(0).lastGet().complete(value("old", 10));
        replica(1).lastGet().complete(Entry.tombstone(KEY, 30));
        assertTrue(replica(0).upserts.get(0).isTombstone());
        replica(0).lastUpsert().complete(null);
        assertTrue(get.get().isTombstone());
    }

    @Test
    void asyncAnswersAtOnceAndRepairsInTheBackground() throws Exception {
        CompletableFuture<Entry> get = coordinator(ReadRepair.ASYNC).get(KEY, TWO_OF_THREE).toCompletableFuture();
        replica(0).lastGet().complete(null);
        replica(1).lastGet().complete(value("new", 20));
        assertTrue(get.isDone());
        assertEquals(20, get.get().timestamp());
        assertEquals(1, replica(0).upserts.size());
        replica(2).lastGet().complete(value("older", 5));
        assertEquals(1, replica(2).upserts.size(), "a late stale answer is repaired as well");
        assertSame(replica(0).upserts.get(0), replica(2).upserts.get(0));
    }

    @Test
    void offWritesNothing() throws Exception {
        CompletableFuture<Entry> get = coordinator(ReadRepair.OFF).get(KEY, TWO_OF_THREE).toCompletableFuture();
        replica(0).lastGet().complete(null);
        replica(1).lastGet().complete(value("new", 20));
        replica(2).lastGet().complete(value("older", 5));
        assertEquals(20, get.get().timestamp());
        for (ManualReplica r : replicas) {
            assertEquals(0, r.upserts.size());
        }
    }
}
