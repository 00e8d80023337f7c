package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HybridClockTest {
    private static final long NOV_2026 = 1_795_000_000_000L;

    private final AtomicLong wall = new AtomicLong(NOV_2026);
    private final HybridClock clock = new HybridClock(wall::get);

    @Test
    void timestampsFollowTheWallClockInMilliseconds() {
        long first = clock.now();
        assertEquals(NOV_2026, HybridClock.millisOf(first));
        assertEquals(0, HybridClock.logicalOf(first));
        wall.addAndGet(5);
        long later = clock.now();
        assertEquals(NOV_2026 + 5, HybridClock.millisOf(later));
        assertEquals(0, HybridClock.logicalOf(later));
    }

    @Test
    void timestampsWithinOneMillisecondAreDistinctAndIncreasing() {
        long previous = clock.now();
        for (int i = 1; i < 1_000; i++) {
            long next = clock.now();
            assertEquals(previous + 1, next);
            assertEquals(NOV_2026, HybridClock.millisOf(next));
            assertEquals(i, HybridClock.logicalOf(next));
            previous = next;
        }
    }

    @Test
    void aTimestampTooFarAheadIsNotAcceptedAndMovesTheClockOnlyToTheBound() {
        long bound = (NOV_2026 + HybridClock.MAX_AHEAD_MILLIS) << HybridClock.LOGICAL_BITS;
        assertTrue(clock.accepts(bound));
        assertTrue(clock.accepts(bound | 0xFFFF), "any logical count within the last accepted millisecond");
        assertEquals(false, clock.accepts((NOV_2026 + HybridClock.MAX_AHEAD_MILLIS + 1) << HybridClock.LOGICAL_BITS));
        assertEquals(false, clock.accepts(Long.MAX_VALUE));
        clock.observe(Long.MAX_VALUE); // a forged or broken replica's answer
        long next = clock.now();
        assertEquals(NOV_2026 + HybridClock.MAX_AHEAD_MILLIS + 1, HybridClock.millisOf(next), "held just past the bound");
        assertTrue(clock.now() > next, "and still moves on");
        wall.addAndGet(2 * HybridClock.MAX_AHEAD_MILLIS);
        assertEquals(NOV_2026 + 2 * HybridClock.MAX_AHEAD_MILLIS, HybridClock.millisOf(clock.now()), "follows the wall clock again");
    }

    @Test
    void aWallClockSteppingBackDoesNotMakeTimeGoBackwards() {
        wall.set(NOV_2026 + 1_000);
        long beforeStep = clock.now();
        wall.set(NOV_2026); // NTP steps the clock back a second
        long previous = beforeStep;
        for (int i = 0; i < 100; i++) {
            long next = clock.now();
            assertTrue(next > previous, "went backwards after the wall clock stepped back");
            previous = next;
            wall.incrementAndGet();
        }
        assertEquals(NOV_2026 + 1_000, HybridClock.millisOf(previous), "holds the high-water mark until the wall catches up");
        wall.set(NOV_2026 + 2_000);
        assertEquals(NOV_2026 + 2_000, HybridClock.millisOf(clock.now()), "follows the wall clock again once it is ahead");
    }

    @Test
    void moreThanTheLogicalRangeInOneMillisecondSpillsIntoTheNextMillisecond() {
        long previous = clock.now();
        for (int i = 0; i < (1 << HybridClock.LOGICAL_BITS) + 10; i++) {
            long next = clock.now();
            assertTrue(next > previous);
            previous = next;
        }
        assertEquals(NOV_2026 + 1, HybridClock.millisOf(previous));
        wall.addAndGet(2);
        assertEquals(NOV_2026 + 2, HybridClock.millisOf(clock.now()));
    }

    @Test
    void observingARemoteTimestampAheadMovesThisClockPastIt() {
        long remote = (NOV_2026 + 50) << HybridClock.LOGICAL_BITS | 7;
        clock.observe(remote);
        long next = clock.now();
        assertTrue(next > remote);
        assertEquals(NOV_2026 + 50, HybridClock.millisOf(next));
    }

    @Test
    void observingAnOldTimestampChangesNothing() {
        long first = clock.now();
        clock.observe((NOV_2026 - 10_000) << HybridClock.LOGICAL_BITS);
        assertEquals(first + 1, clock.now());
    }

    @Test
    void concurrentCallersNeverGetTheSameTimestamp() throws Exception {
        int threads = 4;
        int perThread = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Set<Long> all = new HashSet<>();
            java.util.List<Future<long[]>> results = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    long[] mine = new long[perThread];
                    for (int i = 0; i < perThread; i++) {
                        mine[i] = clock.now();
                        if (i % 1000 == 0) {
                            wall.addAndGet(i % 3000 == 0 ? -7 : 3); // jitter, including backwards steps
                        }
                        if (i > 0) {
                            assertTrue(mine[i] > mine[i - 1]);
                        }
                    }
                    return mine;
                }));
            }
            start.countDown();
            for (Future<long[]> result : results) {
                for (long timestamp : result.get(30, TimeUnit.SECONDS)) {
                    assertTrue(all.add(timestamp), "duplicate timestamp " + timestamp);
                }
            }
            assertEquals(threads * perThread, all.size());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSystemClockIsCloseToCurrentTimeMillis() {
        HybridClock system = new HybridClock();
        long before = System.currentTimeMillis();
        long millis = HybridClock.millisOf(system.now());
        long after = System.currentTimeMillis();
        assertTrue(millis >= before && millis <= after + 1);
    }
}
