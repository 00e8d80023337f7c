package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HybridClockTest {
    private final AtomicLong wall = new AtomicLong(1_700_000_000_000L);
    private final HybridClock clock = new HybridClock(wall::get);

    @Test
    void followsTheWallClockInMilliseconds() {
        long t = clock.now();
        assertEquals(wall.get(), HybridClock.millisOf(t));
        wall.addAndGet(5);
        assertEquals(wall.get(), HybridClock.millisOf(clock.now()));
    }

    @Test
    void staysUniqueAndIncreasingWithinOneMillisecond() {
        long previous = clock.now();
        for (int i = 0; i < 200_000; i++) { // more than the 65,536 logical values of one millisecond
            long t = clock.now();
            assertTrue(t > previous);
            previous = t;
        }
    }

    @Test
    void keepsIncreasingWhenTheWallClockStepsBack() {
        long before = clock.now();
        wall.addAndGet(-60_000); // NTP steps the clock back a minute
        long after = clock.now();
        assertTrue(after > before, "timestamps must not go back with the wall clock");
        assertEquals(HybridClock.millisOf(before), HybridClock.millisOf(after), "stays at the highest time seen");
        wall.addAndGet(120_000);
        assertEquals(wall.get(), HybridClock.millisOf(clock.now()), "catches up when the wall clock passes it");
    }

    @Test
    void advancesPastTimestampsObservedFromOtherNodes() {
        long remote = (wall.get() + 10_000) << 16 | 7; // a node whose clock runs 10 s ahead
        clock.observe(remote);
        assertTrue(clock.now() > remote);
        clock.observe(remote - 1_000); // older observations change nothing
        assertTrue(clock.now() > remote + 1);
    }

    @Test
    void isUniqueAcrossThreads() throws Exception {
        HybridClock shared = new HybridClock();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Set<Long> mine = new HashSet<>();
                for (int i = 0; i < 50_000; i++) {
                    mine.add(shared.now());
                }
                seen.addAll(mine);
            });
            threads[t].start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(200_000, seen.size());
    }
}
