package io.kvstore.core.log;

import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteAheadLogTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(SyncPolicy.class)
    void concurrentWritersAreAllDurableAcrossRotations(SyncPolicy policy) throws Exception {
        Path first = dir.resolve("000001.wal");
        Path second = dir.resolve("000002.wal");
        ReentrantLock writeLock = new ReentrantLock();
        int threads = 4;
        int perThread = 200;
        try (WriteAheadLog log = new WriteAheadLog(first, policy, 1)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        long position;
                        writeLock.lock();
                        try {
                            if (thread == 0 && i == perThread / 2) {
                                log.rotate(second);
                            }
                            position = log.append(Entry.value(("k" + thread + "-" + i).getBytes(StandardCharsets.UTF_8),
                                    new byte[10], i));
                        } finally {
                            writeLock.unlock();
                        }
                        log.awaitDurable(position);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        long[] records = {0};
        LogReader.Result a = LogReader.replay(first, e -> records[0]++);
        LogReader.Result b = LogReader.replay(second, e -> records[0]++);
        assertEquals(threads * perThread, records[0]);
        assertEquals(0, a.tornBytes + b.tornBytes);
        assertTrue(a.records > 0 && b.records > 0);
    }
}
