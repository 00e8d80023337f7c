package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where an ingested batch goes: the deepest level it fits, never across a running compaction's output. */
class IngestionTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final TestTables tables = new TestTables(() -> dir);

    private DaoOptions options() {
        return DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED).compression(Compression.NONE).build();
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** A table of the keys {@code from} to {@code to}, inclusive. */
    private SsTable table(int from, int to) throws IOException {
        List<Entry> entries = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            entries.add(Entry.value(key(i), new byte[10], 1));
        }
        return tables.write(entries.iterator(), entries.size(), options());
    }

    private static Version version(SsTable[] tables, int... levels) {
        return new Version(new Memtable(1), new Memtable[0], tables, levels, new boolean[tables.length]);
    }

    @Test
    void anEmptyStoreTakesABatchAtItsLastLevel() {
        Version empty = version(new SsTable[0]);
        assertEquals(LevelTargets.LAST_LEVEL, Ingestion.levelFor(empty, key(0), key(9), null));
    }

    @Test
    void aBatchGoesToTheDeepestLevelItOverlapsNothingIn() throws IOException {
        SsTable l6 = table(0, 100);
        SsTable l5 = table(40, 60);
        Version v = version(new SsTable[] {l5, l6}, 5, 6);
        assertEquals(6, Ingestion.levelFor(v, key(101), key(200), null), "beside the last level's table");
        assertEquals(5, Ingestion.levelFor(v, key(10), key(30), null), "under the last level's range, beside level 5's");
        assertEquals(4, Ingestion.levelFor(v, key(50), key(55), null), "over both");
        byte[] z = "z".getBytes(StandardCharsets.UTF_8);
        byte[] zz = "zz".getBytes(StandardCharsets.UTF_8);
        assertEquals(6, Ingestion.levelFor(v, z, zz, null), "past every table");
    }

    @Test
    void aStoreDeeperThanSixLevelsIsSearchedFromItsDeepest() throws IOException {
        SsTable deep = table(0, 100);
        Version v = version(new SsTable[] {deep}, 8);
        assertEquals(7, Ingestion.levelFor(v, key(5), key(6), null), "from the deepest level holding a table");
    }

    @Test
    void aRunningCompactionsOutputLevelIsSkippedWhereItsInputsReach() throws IOException {
        SsTable l5 = table(0, 10);
        SsTable l6 = table(20, 30);
        Version v = version(new SsTable[] {l5, l6}, 5, 6);
        Compaction intoSix = Compaction.leveled(v, new SsTable[] {l5, l6}, 6);
        // [12, 15] overlaps no table of level 6, but lies inside what the compaction writes there: [0, 30].
        assertEquals(6, Ingestion.levelFor(v, key(12), key(15), null));
        assertEquals(5, Ingestion.levelFor(v, key(12), key(15), intoSix));
        assertEquals(6, Ingestion.levelFor(v, key(40), key(50), intoSix), "outside its range: no matter");
    }

    @Test
    void withEveryLevelMetTheBatchGoesToLevelZero() throws IOException {
        int last = LevelTargets.LAST_LEVEL;
        SsTable[] all = new SsTable[last];
        int[] levels = new int[last];
        for (int level = 1; level <= last; level++) {
            all[level - 1] = table(0, 10);
            levels[level - 1] = level;
        }
        assertEquals(0, Ingestion.levelFor(version(all, levels), key(3), key(4), null));
        SsTable ingested = table(3, 4);
        Version placed = version(all, levels).withIngested(new SsTable[] {ingested}, 0);
        assertEquals(ingested, placed.tables[placed.levelZeroTables - 1], "level 0's oldest table");
        assertEquals(true, placed.inherited[placed.levelZeroTables - 1], "not one the writers wait for");
        assertEquals(0, placed.flushedLevelZeroTables);
    }
}
