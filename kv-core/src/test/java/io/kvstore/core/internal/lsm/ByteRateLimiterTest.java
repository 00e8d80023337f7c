package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.ByteRateLimiter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ByteRateLimiterTest {
    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;

    /** A clock that only moves when the limiter sleeps. */
    private final AtomicLong nanos = new AtomicLong();

    private ByteRateLimiter limiter(long bytesPerSecond) {
        return new ByteRateLimiter(bytesPerSecond, nanos::get, nanos::addAndGet);
    }

    @Test
    void writesAreHeldToTheRateAfterABurstOfATenthOfASecond() {
        ByteRateLimiter limiter = limiter(MIB);
        assertTrue(limiter.acquire(MIB / 10, () -> false));
        assertEquals(0, nanos.get(), "the burst is free");
        for (int i = 0; i < 10; i++) {
            assertTrue(limiter.acquire(MIB, () -> false));
        }
        assertEquals(10.0, nanos.get() / 1e9, 0.01, "10 MiB at 1 MiB/s");
    }

    @Test
    void aNewRateHoldsFromThenOnWithItsOwnBurst() {
        ByteRateLimiter limiter = limiter(MIB);
        assertTrue(limiter.acquire(MIB / 10, () -> false));
        limiter.setBytesPerSecond(MIB / 4);
        assertTrue(limiter.acquire(MIB / 4, () -> false));
        assertEquals(1.0, nanos.get() / 1e9, 0.01, "a quarter MiB at a quarter MiB/s");
        assertFalse(limiter.tryAcquire(MIB / 40 + 1), "the burst is a tenth of a second of the new rate");
        assertThrows(IllegalArgumentException.class, () -> limiter.setBytesPerSecond(0));
    }

    @Test
    void tryAcquireTakesOnlyWhatTheBucketHoldsAndNeverWaits() {
        ByteRateLimiter limiter = limiter(MIB);
        long burst = MIB / 10;
        assertFalse(limiter.tryAcquire(burst + 1), "more than the burst");
        assertTrue(limiter.tryAcquire(burst / 2));
        assertTrue(limiter.tryAcquire(burst - burst / 2));
        assertFalse(limiter.tryAcquire(1), "the bucket is empty");
        assertEquals(0, nanos.get(), "no wait");
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(50));
        assertTrue(limiter.tryAcquire(MIB / 20), "50 ms at 1 MiB/s refilled a twentieth of a MiB");
    }

    @Test
    void tryAcquireDoesNotWaitBehindACallerThatSleeps() throws Exception {
        CountDownLatch sleeping = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        ByteRateLimiter limiter = new ByteRateLimiter(MIB, nanos::get, n -> {
            sleeping.countDown();
            try {
                assertTrue(wake.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            nanos.addAndGet(n);
        });
        CompletableFuture<Long> slow = CompletableFuture.supplyAsync(() -> limiter.acquireNanos(2 * MIB, () -> false));
        try {
            assertTrue(sleeping.await(10, TimeUnit.SECONDS), "the first caller sleeps");
            boolean taken = CompletableFuture.supplyAsync(() -> limiter.tryAcquire(1)).get(5, TimeUnit.SECONDS);
            assertFalse(taken, "the bucket is in debt, and tryAcquire says so at once");
        } finally {
            wake.countDown();
        }
        assertTrue(slow.get(10, TimeUnit.SECONDS) > 0);
    }

    @Test
    void acquireNanosReportsTheWait() {
        ByteRateLimiter limiter = limiter(MIB);
        assertEquals(0, limiter.acquireNanos(MIB / 10, () -> false), "the burst is free");
        long waited = limiter.acquireNanos(MIB, () -> false);
        assertEquals(TimeUnit.SECONDS.toNanos(1), waited, TimeUnit.MILLISECONDS.toNanos(1));
        assertEquals(waited, nanos.get());
        assertEquals(-1, limiter.acquireNanos(100 * MIB, () -> true), "cancelled");
    }

    @Test
    void aWaitIsReportedAsTheTimeItTookWhenSleepsOverrun() {
        long overrun = TimeUnit.MILLISECONDS.toNanos(30);
        ByteRateLimiter limiter = new ByteRateLimiter(MIB, nanos::get, n -> nanos.addAndGet(n + overrun));
        assertEquals(0, limiter.acquireNanos(MIB / 10, () -> false), "the burst is free");
        long waited = limiter.acquireNanos(MIB, () -> false);
        assertEquals(nanos.get(), waited, "all the time the caller was held, not the slices it asked for");
        assertTrue(waited >= TimeUnit.SECONDS.toNanos(1), "a MiB at a MiB/s: " + waited);
    }

    @Test
    void timeWithoutWritesRefillsOnlyTheBurst() {
        ByteRateLimiter limiter = limiter(MIB);
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(60));
        long before = nanos.get();
        assertTrue(limiter.acquire(2 * MIB, () -> false));
        assertEquals(1.9, (nanos.get() - before) / 1e9, 0.01, "a minute idle does not buy a minute of bursting");
    }

    @Test
    void aCancelledWaitReturnsAtOnce() {
        ByteRateLimiter limiter = limiter(1024);
        assertFalse(limiter.acquire(100 * MIB, () -> nanos.get() > TimeUnit.SECONDS.toNanos(1)));
        assertTrue(nanos.get() < TimeUnit.SECONDS.toNanos(2), "waits in slices and checks between them");
    }

    @Test
    void aNegativeRateIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> DaoOptions.builder(dir).compactionBytesPerSecond(-1).build());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> DaoOptions.builder(dir).delayedWriteBytesPerSecond(0).build());
        assertTrue(zero.getMessage().contains("delayedWriteBytesPerSecond"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ByteRateLimiter(0));
    }

    @Test
    void aRateLimitedCompactionTakesAtLeastItsBytesOverTheRate() throws IOException {
        long rate = 512 << 10;
        DaoOptions options = DaoOptions.builder(dir).compression(Compression.NONE).compactionTrigger(100)
                .compactionBytesPerSecond(rate).build();
        Random random = new Random(1);
        try (LsmDao dao = LsmDao.open(options)) {
            for (int table = 0; table < 2; table++) {
                for (int i = 0; i < 600; i++) {
                    byte[] value = new byte[1000];
                    random.nextBytes(value);
                    dao.upsert(Entry.value(String.format("k%05d", i * 2 + table).getBytes(), value, 1));
                }
                dao.flush();
            }
            long start = System.nanoTime();
            dao.compactOldest(2);
            double seconds = (System.nanoTime() - start) / 1e9;
            long written = dao.liveTables()[0].fileSize();
            double least = (written - rate / 10.0 - 256 * 1100) / rate;
            assertTrue(seconds >= least, "compacted " + written + " bytes in " + seconds + " s, at least " + least);
            assertEquals(1, dao.liveTables().length);
        }
    }
}
