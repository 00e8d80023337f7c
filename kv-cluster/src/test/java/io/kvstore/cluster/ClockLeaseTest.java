package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.FaultyStorage;
import io.kvstore.core.testing.FaultyStorage.Op;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@link HybridClock} over a {@link ClockLease} keeps its guarantees across restarts. */
class ClockLeaseTest {
    private static final long NOV_2026 = 1_795_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void aClockRestartedWithItsWallClockBehindStampsAboveItsEarlierTimestamps() throws IOException {
        AtomicLong wall = new AtomicLong(NOV_2026);
        HybridClock first = new HybridClock(wall::get, ClockLease.open(dir));
        long last = 0;
        for (int i = 0; i < 1_000; i++) {
            last = first.now();
        }
        wall.set(NOV_2026 - 3_600_000); // the restarted node's wall clock is an hour behind
        HybridClock restarted = new HybridClock(wall::get, ClockLease.open(dir));
        assertTrue(restarted.now() > last, "a new write must supersede the node's earlier ones");
    }

    @Test
    void observedTimestampsAreCoveredByTheLeaseToo() throws IOException {
        AtomicLong wall = new AtomicLong(NOV_2026);
        HybridClock first = new HybridClock(wall::get, ClockLease.open(dir));
        long remote = (NOV_2026 + 50_000) << HybridClock.LOGICAL_BITS;
        first.observe(remote);
        HybridClock restarted = new HybridClock(wall::get, ClockLease.open(dir));
        assertTrue(restarted.now() > remote);
    }

    @Test
    void theLeaseIsExtendedOncePerLeasePeriodNotPerTimestamp() throws IOException {
        AtomicLong wall = new AtomicLong(NOV_2026);
        ClockLease lease = ClockLease.open(dir);
        HybridClock clock = new HybridClock(wall::get, lease);
        clock.now();
        long bound = lease.bound();
        for (int i = 0; i < 10_000; i++) {
            clock.now();
        }
        assertEquals(bound, lease.bound(), "a millisecond's worth of timestamps stays within one lease");
        wall.addAndGet(HybridClock.LEASE_MILLIS + 1);
        clock.now();
        assertTrue(lease.bound() > bound);
        assertEquals(Long.toString(lease.bound()), Files.readString(dir.resolve(ClockLease.FILE_NAME)));
    }

    @Test
    void theLeaseIsExtendedInTheBackgroundOnceTimestampsPassItsMiddle() throws Exception {
        AtomicLong wall = new AtomicLong(NOV_2026);
        ClockLease lease = ClockLease.open(dir);
        HybridClock clock = new HybridClock(wall::get, lease);
        clock.now();
        long bound = lease.bound();
        wall.addAndGet(HybridClock.LEASE_MILLIS * 3 / 4);
        long issued = clock.now();
        assertTrue(issued < bound, "issued within the lease, without waiting for a write");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (lease.bound() == bound && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(lease.bound() > issued + (HybridClock.LEASE_MILLIS << HybridClock.LOGICAL_BITS) / 2,
                "extended ahead of the timestamps in use");
    }

    @Test
    void aCorruptLeaseFileIsReportedWithItsPath() throws IOException {
        Files.writeString(dir.resolve(ClockLease.FILE_NAME), "garbage");
        IOException error = assertThrows(IOException.class, () -> ClockLease.open(dir));
        assertTrue(error.getMessage().contains(ClockLease.FILE_NAME) && error.getMessage().contains("garbage"),
                error.getMessage());
    }

    @Test
    void aBoundThatCannotBeMadeDurableIsNotTakenAndTheLastDurableOneOutlivesAPowerCut() throws IOException {
        FaultyStorage storage = new FaultyStorage();
        ClockLease lease = ClockLease.open(storage, dir);
        lease.extendTo(1_000);
        storage.failNth(Op.FSYNC, ClockLease.FILE_NAME + "\\.tmp", 1);
        assertThrows(UncheckedIOException.class, () -> lease.extendTo(2_000));
        assertEquals(1_000, lease.bound(), "the clock must not issue past a bound that may not be on the device");
        storage.powerCut();
        storage.powerOn();
        assertEquals(1_000, ClockLease.open(storage, dir).bound());
    }
}
