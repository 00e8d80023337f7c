package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LongSummaryStatistics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link DaoOptions#flushThresholdSpread()}: memtables are frozen at sizes spread below the threshold,
 * never above it, and nothing written is lost however they are cut.
 */
class FlushThresholdSpreadTest {
    private static final long THRESHOLD = 64 << 10;
    private static final int WRITES = 30_000;

    @TempDir
    Path dir;

    /** Entries per flushed table, with no compaction to merge them: one table per frozen memtable. */
    private LongSummaryStatistics tableEntries(double spread) throws IOException {
        DaoOptions options = DaoOptions.builder(dir.resolve("spread-" + spread)).flushThresholdBytes(THRESHOLD)
                .flushThresholdSpread(spread).compactionStyle(CompactionStyle.SIZE_TIERED).compactionTrigger(1000)
                .build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < WRITES; i++) {
                dao.upsert(Entry.value(key(i), value(i), i + 1));
            }
            SsTable[] tables = dao.liveTables();
            for (int i = 0; i < WRITES; i += 97) {
                assertArrayEquals(value(i), dao.get(key(i)).value(), "key " + i);
            }
            // Each table is one memtable frozen when it reached its size (the active one is not flushed yet).
            return Arrays.stream(tables).mapToLong(SsTable::entryCount).summaryStatistics();
        }
    }

    @Test
    void memtablesAreFrozenAtSizesSpreadBelowTheThreshold() throws IOException {
        LongSummaryStatistics exact = tableEntries(0);
        LongSummaryStatistics spread = tableEntries(0.5);
        assertTrue(exact.getCount() >= 20 && spread.getCount() >= 20, exact + " / " + spread);
        assertTrue(exact.getMax() - exact.getMin() <= exact.getMax() / 100, "without a spread every memtable holds the same: " + exact);
        assertTrue(spread.getMax() <= exact.getMax(), "never above the threshold: " + spread + " against " + exact);
        assertTrue(spread.getMin() >= exact.getMin() / 2 - 1, "at most half below it: " + spread + " against " + exact);
        assertTrue(spread.getMax() - spread.getMin() > exact.getMax() / 5,
                "sizes spread over the range: " + spread + " against " + exact);
        assertTrue(spread.getCount() > exact.getCount(), "smaller memtables, more of them: " + spread + " against " + exact);
    }

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return String.format("%-100d", i).getBytes(StandardCharsets.UTF_8);
    }
}
