package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Size-tiered compaction's choice: runs of tables of similar size, the cheapest window once tiers fail
 * to form, and each level left by leveled compaction taken as one sorted run.
 */
class CompactionPickerTest {
    /** Entries of a table one unit large. */
    private static final int UNIT = 100;

    @TempDir
    Path dir;

    @RegisterExtension
    final TestTables tables = new TestTables(() -> dir);
    private long nextTimestamp = 1;

    @Test
    void triggerTablesOfSimilarSizeAreMergedNewestFirst() {
        assertArrayEquals(new int[] {0, 4}, CompactionPicker.pick(new long[] {10, 12, 9, 11}, 4));
        assertArrayEquals(new int[] {1, 4}, CompactionPicker.pick(new long[] {100, 10, 12, 9}, 3));
        assertNull(CompactionPicker.pick(new long[] {10, 12, 9}, 4));
    }

    @Test
    void tablesOutsideHalfToTwiceTheRunsAverageEndTheRun() {
        assertNull(CompactionPicker.pick(new long[] {10, 30, 10, 30}, 2));
        assertArrayEquals(new int[] {1, 3}, CompactionPicker.pick(new long[] {10, 30, 40, 100}, 2));
    }

    @Test
    void pastFourTimesTheTriggerTheCheapestWindowIsMerged() {
        long[] irregular = {10, 100, 10, 100, 10, 100, 10, 100, 1};
        assertArrayEquals(new int[] {7, 9}, CompactionPicker.pick(irregular, 2));
        assertNull(CompactionPicker.pick(Arrays.copyOf(irregular, 8), 2));
    }

    @Test
    void aRunMergesAtMostMaxRunTables() {
        long[] equal = new long[CompactionPicker.MAX_RUN + 5];
        Arrays.fill(equal, 10);
        assertArrayEquals(new int[] {0, CompactionPicker.MAX_RUN}, CompactionPicker.pick(equal, 4));
    }

    /**
     * Per table, the two small level 0 tables and the first small table of level 6 would make a run,
     * whose output at level 6 would overlap the tables after it; the level as a whole is too large.
     */
    @Test
    void aDeeperLevelIsOneSortedRunTakenWholeOrNotAtAll() throws IOException {
        SsTable newest = table(1, "a");
        SsTable older = table(1, "a");
        SsTable[] level = {table(1, "b"), table(8, "c"), table(8, "d")};
        Version v = version(new SsTable[] {newest, older, level[0], level[1], level[2]}, new int[] {0, 0, 6, 6, 6});
        assertArrayEquals(new SsTable[] {newest, older}, CompactionPicker.pick(v, 2).inputs());

        SsTable big = table(17, "a");
        SsTable bigger = table(17, "a");
        Version similar = version(new SsTable[] {big, bigger, level[0], level[1], level[2]}, new int[] {0, 0, 6, 6, 6});
        assertArrayEquals(new SsTable[] {big, bigger, level[0], level[1], level[2]},
                CompactionPicker.pick(similar, 2).inputs());
    }

    /** A table of {@code units * UNIT} keys starting with {@code prefix}, 100-byte values. */
    private SsTable table(int units, String prefix) throws IOException {
        int count = units * UNIT;
        List<Entry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] key = String.format("%s%08d", prefix, i).getBytes(StandardCharsets.UTF_8);
            entries.add(Entry.value(key, new byte[100], nextTimestamp++));
        }
        DaoOptions options = DaoOptions.builder(dir).compactionStyle(CompactionStyle.SIZE_TIERED)
                .compression(Compression.NONE).build();
        return tables.write(entries.iterator(), count, options);
    }

    private static Version version(SsTable[] tables, int[] levels) {
        return new Version(new Memtable(1), new Memtable[0], tables, levels, new boolean[tables.length]);
    }
}
