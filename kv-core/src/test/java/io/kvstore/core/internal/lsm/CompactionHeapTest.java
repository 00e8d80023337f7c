package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A background compaction keeps no memtable on the heap once it is flushed, however long the merge
 * runs: a memtable is the largest object a store holds, and one kept per running merge would double
 * what the heap must hold for memtables under steady writes.
 */
class CompactionHeapTest {
    private static final int TRIGGER = 2;
    /** More entries per table than a paced compaction writes between two waits for its rate. */
    private static final int ENTRIES_PER_TABLE = 600;

    @TempDir
    Path dir;

    @Test
    void aFlushedMemtableIsCollectedWhileACompactionPickedBeforeItsFlushStillRuns() throws Exception {
        // One byte per second: the compaction picked below writes its first stretch, then waits until close.
        DaoOptions options = DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED)
                .compactionTrigger(TRIGGER).compactionBytesPerSecond(1).build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int table = 0; table < TRIGGER; table++) {
                for (int i = 0; i < ENTRIES_PER_TABLE; i++) {
                    dao.upsert(Entry.value(b("t" + table + "-" + i), b("value " + i), 1 + i));
                }
                dao.flush(); // the last flush has the compactor pick with the empty memtable now active
            }
            WeakReference<Memtable> pickedWithActive = new WeakReference<>(dao.versions().current().active);
            awaitCompactionOutput(dao);

            dao.upsert(Entry.value(b("later"), b("v"), 1_000));
            dao.flush();
            assertEquals(TRIGGER + 1, dao.liveTables().length, "the memtable is flushed, the compaction still runs");

            for (int attempt = 0; attempt < 50 && pickedWithActive.get() != null; attempt++) {
                System.gc();
            }
            assertNull(pickedWithActive.get(), "the flushed memtable is not reachable from the running compaction");
            assertEquals(0, dao.properties().compactions(), "the compaction was still running");
        }
    }

    /** Waits until the running compaction has created an output table (a table file the version does not list). */
    private void awaitCompactionOutput(LsmDao dao) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            Set<Long> live = Arrays.stream(dao.liveTables()).map(SsTable::fileNumber).collect(Collectors.toSet());
            try (Stream<Path> files = Files.list(dir)) {
                if (files.map(file -> FileNames.number(file.getFileName().toString(), FileNames.TABLE_SUFFIX))
                        .anyMatch(number -> number >= 0 && !live.contains(number))) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "a compaction started within 30 s");
            Thread.sleep(10); // the compaction thread gives no signal of its own that its merge began
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
