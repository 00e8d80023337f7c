package io.kvstore.core.internal.lsm;

import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.util.ProcThreads;
import io.kvstore.core.internal.util.ThreadPriority;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class LsmDaoTest {
    @TempDir
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    DaoOptions small() {
        return DaoOptions.builder(dir).flushThresholdBytes(4096).blockSizeBytes(256).compactionTrigger(3).build();
    }

    static List<Entry> all(CloseableIterator<Entry> it) {
        List<Entry> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                out.add(it.next());
            }
        }
        return out;
    }

    @Test
    void valuesSurviveFlushCompactionAndReopen() throws IOException {
        // No background compaction: one into the last level may drop the tombstone (long past its grace)
        // before the test reads it; only the explicit full compaction below may.
        DaoOptions options = small().toBuilder().compactionTrigger(1000).build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < 2000; i++) {
                dao.upsert(Entry.value(b(String.format("k%05d", i)), b("v" + i), i));
            }
            dao.upsert(Entry.tombstone(b("k00007"), 5000));
            dao.flush();
            assertEquals("v42", new String(dao.get(b("k00042")).value(), StandardCharsets.UTF_8));
            assertTrue(dao.get(b("k00007")).isTombstone());
            dao.compact();
            assertEquals(1, dao.liveTables().length);
        }
        try (LsmDao dao = LsmDao.open(options)) {
            assertEquals("v1999", new String(dao.get(b("k01999")).value(), StandardCharsets.UTF_8));
            assertNull(dao.get(b("k00007")), "a tombstone dropped by a full compaction leaves no version");
            assertNull(dao.get(b("absent")));
            assertEquals(1999, all(dao.range(null, null)).size());
        }
    }

    @Test
    void unflushedWritesAreReplayedFromTheLog() throws IOException {
        LsmDao dao = LsmDao.open(DaoOptions.defaults(dir));
        dao.upsert(Entry.value(b("a"), b("1"), 1));
        dao.upsert(Entry.value(b("b"), new byte[0], 2));
        dao.upsert(Entry.tombstone(b("c"), 3));
        // A copy taken while the store is open is what a crash leaves: no table, only the log.
        Path copy = dir.resolveSibling(dir.getFileName() + "-copy");
        copyDirectory(dir, copy);
        dao.close();
        try (LsmDao reopened = LsmDao.open(DaoOptions.defaults(copy))) {
            assertArrayEquals(b("1"), reopened.get(b("a")).value());
            assertEquals(0, reopened.get(b("b")).value().length);
            assertTrue(reopened.get(b("c")).isTombstone());
            assertEquals(3, reopened.get(b("c")).timestamp());
        }
    }

    @Test
    void logsLargerThanAMemtableAreReplayedIntoSeveralLevelZeroTables() throws IOException {
        // Written with 4 MiB memtables, reopened with 256 KiB ones: the replay fills memtables of the
        // reopened store's size and writes each out, rather than one memtable for every log.
        LsmDao dao = LsmDao.open(DaoOptions.builder(dir).flushThresholdBytes(4 << 20).build());
        byte[] value = new byte[1000];
        int count = 3000;
        for (int i = 0; i < count; i++) {
            value[0] = (byte) i;
            dao.upsert(Entry.value(b(String.format("k%05d", i)), value, i + 1));
        }
        Path copy = dir.resolveSibling(dir.getFileName() + "-copy");
        copyDirectory(dir, copy);
        dao.close();
        long threshold = 256 << 10;
        try (LsmDao reopened = LsmDao.open(DaoOptions.builder(copy).flushThresholdBytes(threshold).compactionTrigger(1000)
                .build())) {
            int tables = reopened.liveTables().length;
            assertTrue(tables >= count * 1000L / threshold / 2, "tables replayed: " + tables);
            for (int level : reopened.liveLevels()) {
                assertEquals(0, level);
            }
            List<Entry> entries = all(reopened.range(null, null));
            assertEquals(count, entries.size());
            for (int i = 0; i < count; i++) {
                assertEquals((byte) i, entries.get(i).value()[0], "key " + i);
                assertEquals(i + 1, entries.get(i).timestamp());
            }
        }
    }

    @Test
    void higherTimestampWinsAcrossMemtablesAndTables() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            dao.upsert(Entry.value(b("k"), b("new"), 100));
            dao.flush();
            dao.upsert(Entry.value(b("k"), b("old"), 50));
            assertArrayEquals(b("new"), dao.get(b("k")).value(), "older timestamp in memtable must not win");
            assertArrayEquals(b("new"), all(dao.range(null, null)).get(0).value());
            dao.flush();
            assertArrayEquals(b("new"), dao.get(b("k")).value());
            dao.compact();
            assertArrayEquals(b("new"), dao.get(b("k")).value());

            dao.upsert(Entry.value(b("t"), b("first"), 7));
            dao.flush();
            dao.upsert(Entry.value(b("t"), b("second"), 7));
            assertArrayEquals(b("second"), dao.get(b("t")).value(), "equal timestamps: the later write wins");
            dao.flush();
            assertArrayEquals(b("second"), dao.get(b("t")).value());
            dao.compact();
            assertArrayEquals(b("second"), dao.get(b("t")).value());
        }
    }

    @Test
    void tombstoneIsKeptWhileANewerTableHoldsAnOlderVersion() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            dao.upsert(Entry.tombstone(b("k"), 100));
            dao.flush();
            dao.upsert(Entry.value(b("k"), b("late replica write"), 50));
            dao.flush();
            assertTrue(dao.get(b("k")).isTombstone());
            // Compacting only the oldest table must not drop the tombstone hiding the newer table's value.
            dao.compactOldest(1);
            assertTrue(dao.get(b("k")).isTombstone());
            assertTrue(all(dao.range(null, null)).get(0).isTombstone());
            // A full compaction drops both: the key has no version left, which also reads as absent.
            dao.compact();
            assertNull(dao.get(b("k")));
        }
    }

    @Test
    void aLateWriteArrivingDuringACompactionStaysHiddenByTheTombstoneItWasPlannedToDrop() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            dao.upsert(Entry.value(b("k"), b("original"), 50));
            dao.upsert(Entry.value(b("other"), b("x"), 60));
            dao.flush();
            dao.upsert(Entry.tombstone(b("k"), 100));
            dao.flush();
            // Planned with empty memtables, the full compaction may drop the tombstone; while it merges, a
            // replica's late write with an older timestamp arrives, and reads rightly see the tombstone.
            boolean[] written = new boolean[1];
            dao.compactOldest(Integer.MAX_VALUE, () -> {
                if (!written[0]) {
                    written[0] = true;
                    try {
                        dao.upsert(Entry.value(b("k"), b("late"), 80));
                        assertTrue(dao.get(b("k")).isTombstone());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
            assertTrue(written[0]);
            assertTrue(dao.get(b("k")).isTombstone(), "the compaction must not uncover the late write");
            assertEquals(100, dao.get(b("k")).timestamp());
            assertArrayEquals(b("x"), dao.get(b("other")).value());
            dao.flush();
            assertTrue(dao.get(b("k")).isTombstone());
        }
        try (LsmDao dao = LsmDao.open(small())) {
            assertTrue(dao.get(b("k")).isTombstone(), "nor after a reopen");
        }
    }

    @Test
    void aCompactionWhoseManifestCannotBeWrittenLeavesNoTableBehind() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            flushTwoTables(dao);
            java.util.Set<Path> before = tableFiles();
            // A directory where the manifest's temporary file goes: writing the manifest fails, as on a failing disk.
            Files.createDirectory(dir.resolve(FileNames.MANIFEST_TMP));
            IOException failed = assertThrows(IOException.class, dao::compact);
            assertTrue(failed.getMessage().contains(dir.toString()), "names the store: " + failed.getMessage());
            assertEquals(before, tableFiles(), "the unused output is deleted; the inputs stay");
            assertArrayEquals(b("v1"), dao.get(b("k1")).value());
            assertTrue(dao.diskSpace().writesStopped().contains(FileNames.MANIFEST_TMP), "a failed write stops writes: "
                    + dao.diskSpace());
            Files.delete(dir.resolve(FileNames.MANIFEST_TMP));
        }
        try (LsmDao dao = LsmDao.open(small())) {
            dao.compact();
            assertEquals(1, tableFiles().size());
            assertArrayEquals(b("v1"), dao.get(b("k1")).value());
        }
    }

    @Test
    void aCompactionWhoseSwitchIsRefusedLeavesNoTableBehind() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            flushTwoTables(dao);
            java.util.Set<Path> before = tableFiles();
            // Between the merge and its switch, the oldest input leaves the version (a change nothing
            // else makes while a compaction runs): the switch refuses, and the merge's output must go.
            VersionSet versions = dao.versions();
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> dao.compactOldest(2, () -> {
                synchronized (versions.manifestLock) {
                    try {
                        versions.install(v -> v.withCompacted(new SsTable[] {v.tables[v.tables.length - 1]}, null));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }));
            assertTrue(refused.getMessage().startsWith("compaction inputs are no longer"), refused.getMessage());
            assertTrue(before.containsAll(tableFiles()), "the unused output is deleted: " + tableFiles() + " against " + before);
            assertArrayEquals(b("v1"), dao.get(b("k1")).value());
        }
    }

    /**
     * A compaction that leaves out no tombstone switches versions without the writers' lock: its
     * manifest's fsyncs (milliseconds each) must not hold every write up. The manifest's temporary file
     * is made a named pipe, so the compaction stays inside its manifest write until the test reads it.
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void writesGoOnWhileACompactionThatDropsNoTombstoneWritesItsManifest() throws Exception {
        Path pipe = dir.resolve(FileNames.MANIFEST_TMP);
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).flushThresholdBytes(1 << 20).build())) {
            flushTwoTables(dao);
            assumeTrue(new ProcessBuilder("mkfifo", pipe.toString()).inheritIO().start().waitFor() == 0, "mkfifo");
            Thread[] compacting = new Thread[1];
            CountDownLatch merged = new CountDownLatch(1);
            ExecutorService caller = Executors.newSingleThreadExecutor();
            Future<?> compaction = caller.submit(() -> {
                dao.compactOldest(2, () -> {
                    compacting[0] = Thread.currentThread();
                    merged.countDown();
                });
                return null;
            });
            boolean inManifestWrite = false;
            try {
                assertTrue(merged.await(10, TimeUnit.SECONDS), "the merge ran");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (Arrays.stream(compacting[0].getStackTrace())
                        .noneMatch(frame -> frame.getClassName().equals(Manifest.class.getName()))) {
                    assertTrue(System.nanoTime() < deadline, "the compaction reached its manifest write");
                    Thread.yield();
                }
                inManifestWrite = true;
                CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                    try {
                        dao.upsert(Entry.value(b("k2"), b("v2"), 2));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                write.get(10, TimeUnit.SECONDS);
                assertArrayEquals(b("v2"), dao.get(b("k2")).value());
                assertTrue(!compaction.isDone(), "the compaction was still writing its manifest");
            } finally {
                if (inManifestWrite) {
                    // Let it through: it writes into the pipe, whose fsync fails, and leaves its inputs in place.
                    assertTrue(Files.readAllBytes(pipe).length > 0);
                }
                Files.delete(pipe);
                caller.shutdown();
            }
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> compaction.get(10, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof IOException, String.valueOf(failed.getCause()));
            // A failed fsync stops writes, naming the file; reads go on.
            assertTrue(dao.diskSpace().writesStopped().contains(FileNames.MANIFEST_TMP), String.valueOf(dao.diskSpace()));
            assertArrayEquals(b("v2"), dao.get(b("k2")).value());
        }
        try (LsmDao dao = LsmDao.open(small())) {
            dao.compact();
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(b("v" + i), dao.get(b("k" + i)).value());
            }
        }
    }

    @Test
    void aMemtableSwitchGoesOnWhileAFlushWritesItsManifest() throws Exception {
        Path pipe = dir.resolve(FileNames.MANIFEST_TMP);
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).flushThresholdBytes(1 << 20).build())) {
            dao.upsert(Entry.value(b("k0"), b("v0"), 0));
            assumeTrue(new ProcessBuilder("mkfifo", pipe.toString()).inheritIO().start().waitFor() == 0, "mkfifo");
            ExecutorService caller = Executors.newSingleThreadExecutor();
            Future<?> flush = caller.submit(() -> {
                dao.flush();
                return null;
            });
            boolean inManifestWrite = false;
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!threadInManifestWrite("kvstore-flush")) {
                    assertTrue(System.nanoTime() < deadline, "the flush reached its manifest write");
                    Thread.yield();
                }
                inManifestWrite = true;
                byte[] big = new byte[1 << 20];
                CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> {
                    try {
                        dao.upsert(Entry.value(b("k1"), big, 1));
                        dao.upsert(Entry.value(b("k2"), b("v2"), 2)); // the active memtable is full: a switch
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                writes.get(10, TimeUnit.SECONDS);
                assertEquals(2, dao.frozenMemtables(), "k1's memtable frozen behind the one being flushed");
                assertArrayEquals(b("v2"), dao.get(b("k2")).value());
                assertArrayEquals(b("v0"), dao.get(b("k0")).value());
                assertTrue(!flush.isDone(), "the flush was still writing its manifest");
            } finally {
                if (inManifestWrite) {
                    // Let it through: it writes into the pipe, whose fsync fails; the store refuses writes.
                    assertTrue(Files.readAllBytes(pipe).length > 0);
                }
                Files.delete(pipe);
                caller.shutdown();
            }
            ExecutionException failed = assertThrows(ExecutionException.class, () -> flush.get(10, TimeUnit.SECONDS));
            assertTrue(failed.getCause() instanceof IOException, String.valueOf(failed.getCause()));
        }
        try (LsmDao dao = LsmDao.open(small())) {
            assertArrayEquals(b("v0"), dao.get(b("k0")).value());
            assertEquals(1 << 20, dao.get(b("k1")).value().length);
            assertArrayEquals(b("v2"), dao.get(b("k2")).value());
        }
    }

    /** Whether the thread named {@code name} is inside {@link Manifest}'s code. */
    private static boolean threadInManifestWrite(String name) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().equals(name))
                .anyMatch(e -> Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().equals(Manifest.class.getName())));
    }

    /** Flushes k0 = v0, then k1 = v1, each into a table of its own. */
    private static void flushTwoTables(LsmDao dao) throws IOException {
        for (int round = 0; round < 2; round++) {
            dao.upsert(Entry.value(b("k" + round), b("v" + round), round));
            dao.flush();
        }
    }

    private java.util.Set<Path> tableFiles() throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".sst")).collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    void rangeHonoursBoundsAndReturnsTombstones() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            for (int i = 0; i < 10; i++) {
                dao.upsert(Entry.value(new byte[] {(byte) (i * 25)}, b("v" + i), 1));
                if (i == 4) {
                    dao.flush();
                }
            }
            dao.upsert(Entry.tombstone(new byte[] {(byte) 50}, 2));
            List<Entry> mid = all(dao.range(new byte[] {(byte) 25}, new byte[] {(byte) 200}));
            assertEquals(7, mid.size());
            assertEquals(25, mid.get(0).key()[0] & 0xFF);
            assertTrue(mid.get(1).isTombstone());
            assertEquals(175, mid.get(6).key()[0] & 0xFF);
            assertEquals(0, all(dao.range(new byte[] {(byte) 100}, new byte[] {(byte) 100})).size());
            assertEquals(10, all(dao.range(null, null)).size());
            assertEquals(3, all(dao.range(new byte[] {(byte) 175}, null)).size());
        }
    }

    @Test
    void secondOpenOfTheSameDirectoryFailsClearly() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            IOException e = assertThrows(IOException.class, () -> LsmDao.open(small()));
            assertTrue(e.getMessage().contains("already open"), e.getMessage());
        }
        try (LsmDao again = LsmDao.open(small())) {
            assertNull(again.get(b("x")));
        }
    }

    @Test
    void flippedByteInATableIsReportedWithTheFileName() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) {
            for (int i = 0; i < 50; i++) {
                dao.upsert(Entry.value(b(String.format("k%05d", i)), b("value-" + i), i));
            }
            dao.flush();
        }
        Path table;
        try (var files = Files.list(dir)) {
            table = files.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(table);
        bytes[20] ^= 0x10; // inside the first data block
        Files.write(table, bytes);
        try (LsmDao dao = LsmDao.open(small())) {
            io.kvstore.core.CorruptionException e =
                    assertThrows(io.kvstore.core.CorruptionException.class, () -> dao.get(b("k00000")));
            // The table is quarantined: the refusal names where it was moved, its cause the damage found.
            assertEquals(table.getFileName(), e.file().getFileName());
            assertTrue(e.getMessage().contains(table.getFileName().toString()), e.getMessage());
            io.kvstore.core.CorruptionException damage = (io.kvstore.core.CorruptionException) e.getCause();
            assertEquals(table, damage.file());
            assertTrue(damage.getMessage().contains(table.toString()), damage.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(SyncPolicy.class)
    void everySyncPolicyKeepsConcurrentWritesAcrossReopen(SyncPolicy policy) throws Exception {
        DaoOptions options = small().toBuilder().syncPolicy(policy).groupCommitIntervalMillis(1).build();
        int threads = 3;
        int perThread = 300;
        try (LsmDao dao = LsmDao.open(options)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        dao.upsert(Entry.value(b("t" + thread + "-" + i), b("v" + i), i));
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
        try (LsmDao dao = LsmDao.open(options)) {
            assertEquals(threads * perThread, all(dao.range(null, null)).size());
            assertArrayEquals(b("v7"), dao.get(b("t2-7")).value());
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void flushesAndCompactionsRunAtTheBackgroundPriority() throws IOException {
        try (LsmDao dao = LsmDao.open(small())) { // the default: SCHED_IDLE
            flushAndCompact(dao);
            for (String thread : List.of("kvstore-flush", "kvstore-compaction")) {
                List<Integer> policies = ProcThreads.policiesOfThreadsNamed(thread);
                assertTrue(policies.contains(ProcThreads.SCHED_IDLE), thread + " threads' policies: " + policies);
            }
        }
        BackgroundPriority nice19 = BackgroundPriority.nice(ThreadPriority.MAX_NICE);
        try (LsmDao dao = LsmDao.open(small().toBuilder().backgroundPriority(nice19).build())) {
            flushAndCompact(dao);
            for (String thread : List.of("kvstore-flush", "kvstore-compaction")) {
                List<Integer> nices = ProcThreads.nicesOfThreadsNamed(thread);
                assertTrue(nices.contains(ThreadPriority.MAX_NICE), thread + " threads' nice values: " + nices);
            }
        }
    }

    private static void flushAndCompact(LsmDao dao) throws IOException {
        for (int i = 0; i < 200; i++) {
            dao.upsert(Entry.value(b("key" + i), b("value" + i), i + 1));
        }
        dao.compact(); // runs on both threads, and waits for them
    }

    static void copyDirectory(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (!f.getFileName().toString().equals("LOCK")) {
                    Files.copy(f, to.resolve(f.getFileName()));
                }
            }
        }
    }

    /**
     * Writers that queue behind the one holding the lock get their own answer: every write either
     * returns, and is there after a reopen, or fails because the store closed; none waits forever.
     */
    @Test
    void writersRacingCloseEachGetAnAnswerAndAcknowledgedWritesSurvive() throws Exception {
        int writers = 4;
        DaoOptions options = DaoOptions.builder(dir).flushThresholdBytes(64 << 10).build();
        LsmDao dao = LsmDao.open(options);
        CountDownLatch someWritten = new CountDownLatch(20_000);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<Integer>> acknowledged = new ArrayList<>();
        try {
            for (int w = 0; w < writers; w++) {
                int writer = w;
                acknowledged.add(pool.submit(() -> {
                    int written = 0;
                    try {
                        while (true) {
                            dao.upsert(Entry.value(b("w" + writer + "-" + written), b("v" + written), written + 1L));
                            written++;
                            someWritten.countDown();
                        }
                    } catch (IOException e) {
                        assertTrue(String.valueOf(e.getMessage()).endsWith("is closed"), e.toString());
                        return written;
                    }
                }));
            }
            assertTrue(someWritten.await(60, TimeUnit.SECONDS));
            dao.close();
            int[] written = new int[writers];
            for (int w = 0; w < writers; w++) {
                written[w] = acknowledged.get(w).get(60, TimeUnit.SECONDS);
            }
            try (LsmDao reopened = LsmDao.open(options)) {
                for (int w = 0; w < writers; w++) {
                    for (int i = 0; i < written[w]; i++) {
                        Entry entry = reopened.get(b("w" + w + "-" + i));
                        assertArrayEquals(b("v" + i), entry == null ? null : entry.value(), "writer " + w + ", write " + i);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
