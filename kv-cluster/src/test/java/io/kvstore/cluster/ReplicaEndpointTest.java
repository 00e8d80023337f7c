package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The replica side: the timestamp bound, one observation of the clock, then the local replica. */
class ReplicaEndpointTest {
    private static final long NOV_2026 = 1_795_000_000_000L;
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    private final AtomicLong wall = new AtomicLong(NOV_2026);
    private final HybridClock clock = new HybridClock(wall::get);
    private final ManualReplica local = new ManualReplica();
    private final ReplicaEndpoint endpoint = new ReplicaEndpoint(local, clock);

    @Test
    void aWriteIsObservedThenStored() throws Exception {
        long remote = (NOV_2026 + 10_000) << HybridClock.LOGICAL_BITS;
        endpoint.apply(Entry.value(KEY, new byte[] {1}, remote));
        assertEquals(1, local.upserts.size());
        assertEquals(remote, local.upserts.get(0).timestamp());
        assertTrue(clock.now() > remote, "a later local write supersedes the replicated one");
    }

    @Test
    void aWriteTooFarAheadIsRefusedAndMovesNothing() {
        long before = clock.latest();
        long farAhead = (NOV_2026 + HybridClock.MAX_AHEAD_MILLIS + 1_000) << HybridClock.LOGICAL_BITS;
        ExecutionException error = assertThrows(ExecutionException.class,
                () -> endpoint.apply(Entry.tombstone(KEY, farAhead)).toCompletableFuture().get());
        assertInstanceOf(TimestampOutOfBoundsException.class, error.getCause());
        assertTrue(error.getCause().getMessage().contains("'k'"), error.getCause().getMessage());
        assertEquals(0, local.upserts.size());
        assertTrue(clock.latest() <= Math.max(before, NOV_2026 << HybridClock.LOGICAL_BITS) + 1,
                "the refused timestamp did not drag the clock");
    }

    @Test
    void readsGoToTheLocalReplica() {
        endpoint.read(KEY);
        assertEquals(1, local.gets.size());
    }
}
