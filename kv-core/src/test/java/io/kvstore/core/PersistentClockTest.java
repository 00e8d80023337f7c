package io.kvstore.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("slow")
class PersistentClockTest {
    @TempDir
    Path directory;

    @Test
    void timestampsIncreaseStrictly() throws IOException {
        PersistentClock clock = PersistentClock.open(directory, PersistentClock.DEFAULT_LEASE_MICROS);
        long previous = clock.next();
        for (int i = 0; i < 100_000; i++) {
            long ts = clock.next();
            assertTrue(ts > previous);
            previous = ts;
        }
    }

    @Test
    void reopenContinuesAboveEveryIssuedTimestampEvenWhenLeasesAreTiny() throws IOException {
        long highest = Long.MIN_VALUE;
        for (int round = 0; round < 5; round++) {
            PersistentClock clock = PersistentClock.open(directory, 3);
            long first = clock.next();
            assertTrue(first > highest, "round " + round + ": " + first + " <= " + highest);
            for (int i = 0; i < 200; i++) {
                highest = clock.next();
            }
            // Every issued timestamp is below the persisted lease.
            assertTrue(storedLease() > highest);
        }
    }

    @Test
    void leaseInTheFutureWinsOverTheWallClock() throws IOException {
        long future = System.currentTimeMillis() * 1000L + 3_600_000_000L;
        Files.writeString(directory.resolve(PersistentClock.FILE_NAME), Long.toString(future));
        PersistentClock clock = PersistentClock.open(directory, PersistentClock.DEFAULT_LEASE_MICROS);
        assertTrue(clock.next() >= future);
    }

    @Test
    void corruptLeaseFileIsReportedWithItsPath() throws IOException {
        Files.writeString(directory.resolve(PersistentClock.FILE_NAME), "not a number");
        IOException e = assertThrows(IOException.class,
                () -> PersistentClock.open(directory, PersistentClock.DEFAULT_LEASE_MICROS));
        assertTrue(e.getMessage().contains(PersistentClock.FILE_NAME), e.getMessage());
    }

    @Test
    void concurrentCallersGetUniqueTimestamps() throws Exception {
        PersistentClock clock = PersistentClock.open(directory, 2_000);
        int threads = 4;
        int each = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    long[] issued = new long[each];
                    for (int i = 0; i < each; i++) {
                        issued[i] = clock.next();
                    }
                    return issued;
                }));
            }
            start.countDown();
            Set<Long> all = new HashSet<>();
            for (Future<long[]> f : results) {
                for (long ts : f.get(60, TimeUnit.SECONDS)) {
                    all.add(ts);
                }
            }
            assertEquals(threads * each, all.size());
        } finally {
            pool.shutdownNow();
        }
    }

    private long storedLease() throws IOException {
        return Long.parseLong(new String(Files.readAllBytes(directory.resolve(PersistentClock.FILE_NAME)),
                StandardCharsets.US_ASCII).trim());
    }
}
