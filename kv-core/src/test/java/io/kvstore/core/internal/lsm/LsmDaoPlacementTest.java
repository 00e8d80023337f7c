package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which of {@link LsmDao#getAsync} and {@link LsmDao#upsertAsync} complete on the calling thread and
 * which are handed to the executor: the executor here only queues tasks, so a call handed over is
 * visibly not done until the test runs the queue.
 */
class LsmDaoPlacementTest {
    @TempDir
    Path dir;

    private final HeldTasks mayBlock = new HeldTasks();

    @Test
    void writesAndMemtableReadsCompleteOnTheCallingThread() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).build())) {
            for (int i = 0; i < 1000; i++) {
                assertTrue(dao.upsertAsync(value(i, i + 1), mayBlock).isDone(), "write " + i);
            }
            for (int i = 0; i < 1000; i++) {
                CompletableFuture<Entry> read = dao.getAsync(key(i), mayBlock);
                assertTrue(read.isDone(), "read " + i);
                assertEquals(value(i, i + 1), read.join());
            }
        }
    }

    @Test
    void theWriteThatFindsTheMemtableFullRunsOnTheExecutor() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).flushThresholdBytes(4096).build())) {
            List<CompletableFuture<Void>> handedOver = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                CompletableFuture<Void> write = dao.upsertAsync(value(i, i + 1), mayBlock);
                if (!write.isDone()) {
                    handedOver.add(write);
                    mayBlock.runAll();
                    assertTrue(write.isDone());
                }
                write.join();
            }
            // 200 writes of ~40 bytes fill a 4 KiB memtable about twice; each rotation is one hand-over.
            assertTrue(handedOver.size() >= 1 && handedOver.size() <= 4, handedOver.size() + " writes handed over");
            for (int i = 0; i < 200; i++) {
                assertEquals(value(i, i + 1), dao.get(key(i)));
            }
        }
    }

    @Test
    void syncedWritesAlwaysRunOnTheExecutor() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).syncPolicy(SyncPolicy.EVERY_WRITE).build())) {
            CompletableFuture<Void> write = dao.upsertAsync(value(1, 1), mayBlock);
            assertFalse(write.isDone(), "a write that waits for fsync must not run on the caller");
            mayBlock.runAll();
            write.join();
            assertEquals(value(1, 1), dao.get(key(1)));
        }
    }

    @Test
    void tablesAreReadOnTheCallerOnlyOnceKnownToBeInMemory() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).build())) {
            for (int i = 0; i < 100; i++) {
                dao.upsert(value(i, 7));
            }
        }
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).build())) {
            assertEquals(1, dao.liveTables().length, "the reopened store reads from one table");
            CompletableFuture<Entry> first = dao.getAsync(key(5), mayBlock);
            assertFalse(first.isDone(), "a table not checked since opening may need the disk");
            mayBlock.runAll(); // the residency check, then the read
            assertEquals(value(5, 7), first.join());
            // The test just wrote and read this small file, so the check finds it in the page cache.
            CompletableFuture<Entry> second = dao.getAsync(key(6), mayBlock);
            assertTrue(second.isDone(), "a table found in memory is read on the caller");
            assertEquals(value(6, 7), second.join());
            // A key newer in the memtable than anything in the table needs no table at all.
            dao.upsert(value(5, 8));
            assertEquals(value(5, 8), dao.getAsync(key(5), mayBlock).join());
        }
    }

    @Test
    void aTableNotYetCheckedSendsOnlyTheReadsItMayAnswerToTheExecutor() throws IOException {
        try (LsmDao dao = LsmDao.open(twoTablesStayApart())) {
            for (int i = 0; i < 100; i++) {
                dao.upsert(value(i, 7));
            }
        }
        try (LsmDao dao = LsmDao.open(twoTablesStayApart())) {
            // A table the store writes is checked as it is written; the reopened one is not checked yet.
            for (int i = 0; i < 100; i++) {
                dao.upsert(Entry.value(otherKey(i), new byte[] {(byte) i}, 1));
            }
            dao.flush();
            assertEquals(2, dao.liveTables().length);
            String tables = Arrays.toString(dao.liveTables());
            // The old table may hold newer versions than the new one, but its range does not span these keys.
            CompletableFuture<Entry> outside = dao.getAsync(otherKey(6), mayBlock);
            assertTrue(outside.isDone(), "a table whose range does not span the key is not consulted");
            assertEquals(Entry.value(otherKey(6), new byte[] {6}, 1), outside.join());
            CompletableFuture<Entry> inside = dao.getAsync(key(6), mayBlock);
            assertFalse(inside.isDone(), "the unchecked table spans the key and may need the disk");
            mayBlock.runAll();
            assertEquals(value(6, 7), inside.join());
            assertEquals(tables, Arrays.toString(dao.liveTables()), "no compaction replaced the tables meanwhile");
        }
    }

    /** Size-tiered below its trigger: two tables are left as they are, and the reopened one unchecked. */
    private DaoOptions twoTablesStayApart() {
        return DaoOptions.builder(dir).compactionStyle(CompactionStyle.SIZE_TIERED).compactionTrigger(4).build();
    }

    /** Keys sorting after every {@link #key(int)}. */
    private static byte[] otherKey(int i) {
        return ("other-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static Entry value(int i, long timestamp) {
        return Entry.value(key(i), ("value-" + i + "-" + timestamp).getBytes(StandardCharsets.UTF_8), timestamp);
    }

    /** Holds every task until {@link #runAll()}, on the test's own thread. */
    private static final class HeldTasks implements Executor {
        private final Queue<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runAll() {
            for (Runnable task; (task = tasks.poll()) != null; ) {
                task.run();
            }
        }
    }
}
