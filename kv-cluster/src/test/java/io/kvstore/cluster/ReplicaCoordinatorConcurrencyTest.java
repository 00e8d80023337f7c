package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import io.kvstore.core.testing.Seeds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Replica answers racing on several threads decide each request exactly once, and correctly. */
class ReplicaCoordinatorConcurrencyTest {
    private static final byte[] KEY = "race".getBytes(StandardCharsets.UTF_8);

    private final ExecutorService answerers = Executors.newFixedThreadPool(3);

    @AfterEach
    void stopThreads() {
        answerers.shutdownNow();
    }

    @Test
    void racingAnswersGiveTheOutcomeTheirCountsDictate() throws Exception {
        SplittableRandom random = new SplittableRandom(Seeds.seed("racing answers"));
        Partitioner partitioner = Partitioners.create("rendezvous", List.of("a", "b", "c"));
        HybridClock clock = new HybridClock();
        for (int round = 0; round < 500; round++) {
            List<ManualReplica> replicas = List.of(new ManualReplica(), new ManualReplica(), new ManualReplica());
            ReplicaCoordinator coordinator = new ReplicaCoordinator(partitioner, new ArrayList<>(replicas), clock,
                    Duration.ofSeconds(30));
            CompletableFuture<Entry> get = coordinator.get(KEY, Quorum.of(2, 3, 3)).toCompletableFuture();
            boolean[] fails = {random.nextBoolean(), random.nextBoolean(), random.nextBoolean()};
            int failures = 0;
            CountDownLatch start = new CountDownLatch(1);
            for (int i = 0; i < 3; i++) {
                ManualReplica replica = replicas.get(i);
                boolean fail = fails[i];
                failures += fail ? 1 : 0;
                long timestamp = 100 + i;
                answerers.execute(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    if (fail) {
                        replica.lastGet().completeExceptionally(new IOException("down"));
                    } else {
                        replica.lastGet().complete(Entry.value(KEY, new byte[] {(byte) timestamp}, timestamp));
                    }
                });
            }
            start.countDown();
            if (failures >= 2) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> get.get(10, TimeUnit.SECONDS));
                NotEnoughReplicasException notEnough = assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
                assertEquals(2, notEnough.failures().size(), "decided on exactly the answers that made it impossible");
            } else {
                Entry result = get.get(10, TimeUnit.SECONDS);
                long newestPossible = 0;
                for (int i = 0; i < 3; i++) {
                    newestPossible = fails[i] ? newestPossible : Math.max(newestPossible, 100 + i);
                }
                long chosen = result.timestamp();
                assertTrue(chosen >= 100 && chosen <= newestPossible && !fails[(int) (chosen - 100)],
                        "result must come from a replica that answered: " + result);
                assertArrayEquals(new byte[] {(byte) chosen}, result.value());
            }
        }
    }
}
