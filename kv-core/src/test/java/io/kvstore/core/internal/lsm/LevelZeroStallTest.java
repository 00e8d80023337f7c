package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under leveled compaction, writers are slowed down, then stopped, while level 0 piles up because
 * compaction falls behind; the waits count as write stalls, and writes resume once compaction catches up.
 */
class LevelZeroStallTest {
    private static final int TRIGGER = 2;

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writersSlowDownThenStopWhileCompactionLetsLevelZeroPileUp() throws Exception {
        long delayedRate = 64 << 10;
        DaoOptions options = DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED)
                .compactionTrigger(TRIGGER).delayedWriteBytesPerSecond(delayedRate).build();
        byte[] large = new byte[16 << 10]; // more than the slowdown's burst, a tenth of a second of its rate
        int slowdown = WriteController.SLOWDOWN_FACTOR * TRIGGER;
        int stop = WriteController.STOP_FACTOR * TRIGGER;
        try (LsmDao dao = LsmDao.open(options)) {
            dao.upsert(Entry.value(b("k0"), b("v0"), 1));
            dao.flush();
            // The compaction thread is held inside a compaction, so flushes pile up at level 0.
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> held = CompletableFuture.runAsync(() -> {
                try {
                    dao.compactOldest(1, () -> {
                        entered.countDown();
                        awaitQuietly(release);
                    });
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try {
                assertTrue(entered.await(10, TimeUnit.SECONDS), "the compaction thread is held");
                for (int i = 1; i < slowdown; i++) {
                    dao.upsert(Entry.value(b("k" + i), b("v" + i), i + 1));
                    dao.flush();
                }
                assertEquals(slowdown, levelZeroTables(dao));
                long stalls = dao.properties().writeStalls();
                long stalledNanos = dao.properties().writeStallNanos();

                dao.upsert(Entry.value(b("small"), b("v"), 99));
                assertEquals(stalls, dao.properties().writeStalls(), "a write within the slowdown's rate does not wait");
                dao.upsert(Entry.value(b("slowed"), large, 100));
                assertEquals(stalls + 1, dao.properties().writeStalls(), "a write beyond the slowdown's rate waits");
                double waited = (dao.properties().writeStallNanos() - stalledNanos) / 1e9;
                assertTrue(waited >= (large.length - delayedRate / 10.0) / delayedRate * 0.99,
                        "for the bytes beyond the burst at the slowdown's rate: " + waited + " s");
                List<Runnable> handedOver = new ArrayList<>();
                Executor recording = handedOver::add;
                CompletableFuture<Void> async = dao.upsertAsync(Entry.value(b("async"), large, 101), recording);
                assertFalse(async.isDone(), "a write that may wait is not made on the caller's thread");
                assertEquals(1, handedOver.size());
                handedOver.get(0).run();
                assertTrue(async.isDone());

                int beyond = 3;
                for (int i = slowdown; i < slowdown + beyond; i++) {
                    dao.upsert(Entry.value(b("k" + i), b("v" + i), i + 1));
                    dao.flush();
                }
                long lowered = WriteController.delayedWriteRate(delayedRate, beyond);
                assertTrue(lowered < delayedRate * 0.6, "three tables more lower the rate: " + lowered);
                stalledNanos = dao.properties().writeStallNanos();
                dao.upsert(Entry.value(b("slowed further"), large, 102));
                waited = (dao.properties().writeStallNanos() - stalledNanos) / 1e9;
                assertTrue(waited >= (large.length - lowered / 10.0) / lowered * 0.99,
                        "for the bytes beyond the burst at the lowered rate: " + waited + " s");

                for (int i = slowdown + beyond; i < stop; i++) {
                    dao.upsert(Entry.value(b("k" + i), b("v" + i), i + 1));
                    dao.flush();
                }
                assertEquals(stop, levelZeroTables(dao));
                CompletableFuture<Thread> writer = new CompletableFuture<>();
                CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
                    writer.complete(Thread.currentThread());
                    try {
                        dao.upsert(Entry.value(b("stopped"), b("v"), 200));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                Thread thread = writer.get(10, TimeUnit.SECONDS);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (thread.getState() != Thread.State.TIMED_WAITING || stopped.isDone()) {
                    assertFalse(stopped.isDone(), "a write at the stop waits for compaction");
                    assertTrue(System.nanoTime() < deadline, "the writer waits");
                    Thread.onSpinWait();
                }
                assertFalse(stopped.isDone());

                release.countDown();
                stopped.get(30, TimeUnit.SECONDS);
                assertTrue(levelZeroTables(dao) < stop, "compaction brought level 0 below the stop");
                assertTrue(dao.properties().writeStalls() >= stalls + 2, "the stopped write counts as a stall");
                assertArrayEquals(b("v"), dao.get(b("stopped")).value());
                assertArrayEquals(b("v0"), dao.get(b("k0")).value());
            } finally {
                release.countDown();
                held.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void theSlowdownRateFallsByAFifthPerTableDownToAFloor() {
        long initial = 16L << 20;
        assertEquals(initial, WriteController.delayedWriteRate(initial, 0));
        assertEquals((long) (initial * 0.8), WriteController.delayedWriteRate(initial, 1));
        assertEquals((long) (initial * Math.pow(0.8, 10)), WriteController.delayedWriteRate(initial, 10));
        assertEquals(WriteController.MIN_DELAYED_WRITE_BYTES_PER_SECOND, WriteController.delayedWriteRate(initial, 100),
                "never below the floor");
        assertEquals(1024, WriteController.delayedWriteRate(1024, 5), "nor above a configured rate below the floor");
    }

    @Test
    void sizeTieredCompactionNeverStallsWritersForTheTableCount() throws IOException {
        DaoOptions options = DaoOptions.builder(dir).compactionStyle(CompactionStyle.SIZE_TIERED)
                .compactionTrigger(TRIGGER).build();
        try (LsmDao dao = LsmDao.open(options)) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch entered = new CountDownLatch(1);
            dao.upsert(Entry.value(b("k0"), b("v0"), 1));
            dao.flush();
            CompletableFuture<Void> held = CompletableFuture.runAsync(() -> {
                try {
                    dao.compactOldest(1, () -> {
                        entered.countDown();
                        awaitQuietly(release);
                    });
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try {
                assertTrue(awaitQuietly(entered));
                int tables = WriteController.STOP_FACTOR * TRIGGER + 1;
                for (int i = 1; i < tables; i++) {
                    dao.upsert(Entry.value(b("k" + i), b("v" + i), i + 1));
                    dao.flush();
                }
                assertEquals(tables, dao.liveTables().length);
                dao.upsert(Entry.value(b("more"), b("v"), 100));
                assertEquals(0, dao.properties().writeStalls());
            } finally {
                release.countDown();
                held.join();
            }
        }
    }

    private static int levelZeroTables(LsmDao dao) {
        int count = 0;
        for (int level : dao.liveLevels()) {
            if (level == 0) {
                count++;
            }
        }
        return count;
    }

    private static boolean awaitQuietly(CountDownLatch latch) {
        try {
            return latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
