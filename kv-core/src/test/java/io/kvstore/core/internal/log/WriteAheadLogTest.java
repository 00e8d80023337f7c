package io.kvstore.core.internal.log;

import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    @ParameterizedTest
    @EnumSource(SyncPolicy.class)
    void aWriterWithItsInterruptSetWritesForcesAndRotatesWithoutClosingTheLogForOthers(SyncPolicy policy)
            throws Exception {
        Path first = dir.resolve("000001.wal");
        Path second = dir.resolve("000002.wal");
        int records = 3 * (LogWriter.WINDOW_BYTES / 10_000); // across several mapped windows
        try (WriteAheadLog log = new WriteAheadLog(first, policy, 1)) {
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> interruptedWriter = pool.submit(() -> {
                    Thread.currentThread().interrupt();
                    for (int i = 0; i < records; i++) {
                        if (i == records / 2) {
                            log.rotate(second);
                        }
                        log.awaitDurable(log.append(Entry.value(("k" + i).getBytes(StandardCharsets.UTF_8),
                                new byte[10_000], i)));
                    }
                    return Thread.interrupted();
                });
                assertTrue(interruptedWriter.get(60, TimeUnit.SECONDS), "the writer's interrupt is still set");
            } finally {
                pool.shutdownNow();
            }
            // Another writer finds the log open.
            log.awaitDurable(log.append(Entry.value("after".getBytes(StandardCharsets.UTF_8), new byte[1], 1)));
        }
        long[] replayed = {0};
        LogReader.replay(first, e -> replayed[0]++);
        LogReader.replay(second, e -> replayed[0]++);
        assertEquals(records + 1, replayed[0]);
    }

    /**
     * Linux reports a failed writeback to one fsync and then forgets it: a later fsync that succeeds says
     * nothing about the pages lost. So after one failure nothing may be acknowledged again, whether by a
     * writer's own fsync (EVERY_WRITE) or by the group commit or a rotation's fsync (GROUP_COMMIT).
     */
    @ParameterizedTest
    @EnumSource(value = SyncPolicy.class, names = {"GROUP_COMMIT", "EVERY_WRITE"})
    void afterAFailedFsyncNothingIsAppendedForcedOrAcknowledgedAgain(SyncPolicy policy) throws Exception {
        try (WriteAheadLog log = new WriteAheadLog(dir.resolve("000001.wal"), policy, 1)) {
            log.awaitDurable(log.append(Entry.value(new byte[] {1}, new byte[] {1}, 1)));
            long pending = log.append(Entry.value(new byte[] {2}, new byte[] {2}, 2));
            IOException eio = new IOException("Input/output error");
            log.forceFailed(eio); // what force() records when fsync fails
            try {
                log.awaitDurable(pending);
                assertEquals(SyncPolicy.GROUP_COMMIT, policy, "only a group commit may have covered it before the failure");
            } catch (IOException waited) {
                assertTrue(causes(waited, eio), "the write waiting for a sync learns it failed: " + waited);
            }
            assertTrue(causes(org.junit.jupiter.api.Assertions.assertThrows(IOException.class, log::forceCurrent), eio));
            assertTrue(causes(org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                    () -> log.append(Entry.value(new byte[] {3}, new byte[] {3}, 3))), eio));
            assertTrue(causes(org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                    () -> log.rotate(dir.resolve("000002.wal"))), eio));
        } catch (IOException closing) {
            assertTrue(closing.getMessage().contains("fsync"), "closing reports the failure too: " + closing);
        }
    }

    private static boolean causes(Throwable thrown, Throwable cause) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t == cause) {
                return true;
            }
        }
        return false;
    }

    @ParameterizedTest
    @EnumSource(SyncPolicy.class)
    void aRotationMovesToThePreparedFileAndTheClosedFilesEndAtTheirLastRecords(SyncPolicy policy) throws IOException {
        Path first = dir.resolve("000001.wal");
        Path second = dir.resolve("000002.wal");
        long[] bytes = {LogFormat.FILE_HEADER, LogFormat.FILE_HEADER};
        try (WriteAheadLog log = new WriteAheadLog(first, policy, 1)) {
            log.prepare(second);
            bytes[0] += appendSome(log, 100);
            log.rotate(second);
            assertEquals(second, log.currentFile());
            bytes[1] += appendSome(log, 50);
        }
        assertEquals(100, LogReader.replay(first, e -> { }).records);
        assertEquals(50, LogReader.replay(second, e -> { }).records);
        assertEquals(bytes[0], Files.size(first), "the old file's zeros are cut");
        assertEquals(bytes[1], Files.size(second));
    }

    @Test
    void aPreparedFileLeftByACrashReplaysAsAnEmptyLogAndAnUnusedOneIsDeletedOnClose() throws IOException {
        Path first = dir.resolve("000001.wal");
        Path second = dir.resolve("000002.wal");
        Path copy = dir.resolve("copy-of-000002.wal");
        try (WriteAheadLog log = new WriteAheadLog(first, SyncPolicy.NONE, 1)) {
            log.prepare(second);
            appendSome(log, 10);
            log.rotate(dir.resolve("000003.wal")); // not the prepared file: it is given up
            assertFalse(Files.exists(second));
            log.prepare(second);
            log.awaitPrepared();
            Files.copy(second, copy); // as a killed process leaves it
        }
        assertFalse(Files.exists(second), "an unused prepared file is deleted on close");
        LogReader.Result crashed = LogReader.replay(copy, e -> { });
        assertEquals(0, crashed.records);
        assertEquals(LogFormat.FILE_HEADER, crashed.validLength);
    }

    private static long appendSome(WriteAheadLog log, int count) throws IOException {
        long bytes = 0;
        for (int i = 0; i < count; i++) {
            long before = log.appendedPosition();
            log.append(Entry.value(("k" + i).getBytes(StandardCharsets.UTF_8), new byte[100], i));
            bytes += log.appendedPosition() - before;
        }
        return bytes;
    }
}
