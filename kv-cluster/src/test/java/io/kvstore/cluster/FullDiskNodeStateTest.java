package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.internal.membership.ClusterMapStore;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.testing.FaultyStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's own state kept beside its store, its cluster map and its clock lease, on a disk that fills:
 * a map that cannot be kept is refused and not installed, a clock whose lease cannot be extended refuses
 * writes (reads go on), both with an {@link InsufficientStorageException} naming the file, and both
 * take up again once space returns.
 */
class FullDiskNodeStateTest {
    private static final long NOV_2026 = 1_795_000_000_000L;
    private static final List<String> THREE = List.of("http://a:1", "http://b:2", "http://c:3");
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    private final FaultyStorage storage = new FaultyStorage();
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    @Test
    void aMapThatCannotBeKeptIsRefusedNamingItsFileAndIsNotInstalledUntilSpaceReturns() throws IOException {
        ClusterMap seed = ClusterMap.seed(THREE, 2, "ring", 8);
        ClusterMapStore store = ClusterMapStore.open(storage, dir, seed);
        ClusterMap next = seed.withJoining("http://d:4");
        storage.noSpace(ClusterMapStore.FILE + ".*", 1);

        InsufficientStorageException refused = assertThrows(InsufficientStorageException.class,
                () -> store.compareAndSet(seed.epoch(), next));
        assertTrue(refused.getMessage().contains(ClusterMapStore.FILE) && refused.getMessage().contains(FaultyStorage.NO_SPACE)
                && refused.getMessage().contains("epoch " + next.epoch()), refused.getMessage());
        assertThrows(InsufficientStorageException.class, () -> store.adopt(next));
        assertThrows(InsufficientStorageException.class, () -> store.reset(next));
        assertEquals(seed, store.current(), "the node goes on with the map it kept");
        assertEquals(seed, ClusterMapStore.open(storage, dir, null).current(), "and keeps it on disk");

        storage.repair();
        assertTrue(store.compareAndSet(seed.epoch(), next));
        assertEquals(next, store.current());
        assertEquals(next, ClusterMapStore.open(storage, dir, null).current());
    }

    @Test
    void aClockWhoseLeaseCannotBeExtendedRefusesWritesButNotReadsUntilSpaceReturns() throws IOException {
        AtomicLong wall = new AtomicLong(NOV_2026);
        ClockLease lease = ClockLease.open(storage, dir);
        HybridClock clock = new HybridClock(wall::get, lease);
        InMemoryDao store = new InMemoryDao();
        ReplicaCoordinator coordinator = new ReplicaCoordinator(Partitioners.create("modn", List.of("only")),
                List.of(new LocalReplica(store, executor)), clock, Duration.ofSeconds(5));
        join(coordinator.put(KEY, bytes("before"), Quorum.defaults(1)));
        long bound = lease.bound();
        storage.noSpace(ClockLease.FILE_NAME + ".*", 1);
        wall.addAndGet(2 * HybridClock.LEASE_MILLIS);

        UncheckedIOException now = assertThrows(UncheckedIOException.class, clock::now);
        InsufficientStorageException refused = assertInstanceOf(InsufficientStorageException.class, now.getCause());
        assertTrue(refused.getMessage().contains("writes are refused until the clock lease")
                && refused.getMessage().contains(ClockLease.FILE_NAME) && refused.getMessage().contains(FaultyStorage.NO_SPACE),
                refused.getMessage());
        CompletionException put = assertThrows(CompletionException.class,
                () -> join(coordinator.put(KEY, bytes("during"), Quorum.defaults(1))));
        assertInstanceOf(InsufficientStorageException.class, put.getCause(), "a refusal the node answers as 507");
        assertInstanceOf(InsufficientStorageException.class, assertThrows(CompletionException.class,
                () -> join(coordinator.delete(KEY, Quorum.defaults(1)))).getCause());
        assertEquals(bound, lease.bound());
        assertEquals(bytes("before").length, store.get(KEY).value().length, "nothing of a refused write is stored");

        long remote = (wall.get() + 1_000) << HybridClock.LOGICAL_BITS;
        clock.observe(remote);
        assertEquals("before", new String(join(coordinator.get(KEY, Quorum.defaults(1))).value(), StandardCharsets.UTF_8),
                "reads go on, their timestamps observed");

        storage.repair();
        long resumed = clock.now();
        assertTrue(resumed > remote, "a timestamp observed while the lease was stuck is still superseded");
        assertTrue(lease.bound() > resumed);
        join(coordinator.put(KEY, bytes("after"), Quorum.defaults(1)));
        assertEquals("after", new String(store.get(KEY).value(), StandardCharsets.UTF_8));
        assertTrue(store.get(KEY).timestamp() > remote);
        assertTrue(ClockLease.open(storage, dir).bound() > resumed, "the lease on disk is ahead again");
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
