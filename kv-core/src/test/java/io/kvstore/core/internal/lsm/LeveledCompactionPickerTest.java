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
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Leveled compaction's choice: by table count while writes arrive, and at rest also by level 0's
 * size against the levels below it.
 */
class LeveledCompactionPickerTest {
    /** Entries of a table one unit large; a level 6 of ten units is a small store under the base size. */
    private static final int UNIT = 200;

    @TempDir
    Path dir;

    @RegisterExtension
    final TestTables tables = new TestTables(() -> dir);
    private long nextTimestamp = 1;

    private DaoOptions options() {
        return DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED).compression(Compression.NONE)
                .compactionTrigger(4).build();
    }

    /** A table of {@code units * UNIT} keys spread over the same key space, in order, 100-byte values. */
    private SsTable table(int units) throws IOException {
        int count = units * UNIT;
        List<Entry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] key = String.format("key%08d", (long) i * 10_000_000 / count).getBytes(StandardCharsets.UTF_8);
            entries.add(Entry.value(key, new byte[100], nextTimestamp++));
        }
        return tables.write(entries.iterator(), count, options());
    }

    /** A version of {@code tables} (level 0 newest first) at {@code levels}, with no memtable data. */
    private static Version version(SsTable[] tables, int[] levels, boolean[] inherited) {
        return new Version(new Memtable(1), new Memtable[0], tables, levels, inherited);
    }

    private static int levelZeroInputs(Compaction job, Version v) {
        int count = 0;
        for (SsTable input : job.inputs()) {
            for (int i = 0; i < v.tables.length; i++) {
                if (v.tables[i] == input && v.levels[i] == 0) {
                    count++;
                }
            }
        }
        return count;
    }

    @Test
    void atRestLevelZeroOverATenthOfTheLevelsBelowMergesIntoTheBaseLevel() throws IOException {
        SsTable last = table(10);
        SsTable newer = table(1);
        SsTable older = table(1);
        Version v = version(new SsTable[] {newer, older, last}, new int[] {0, 0, LevelTargets.LAST_LEVEL},
                new boolean[3]);
        LeveledCompactionPicker picker = new LeveledCompactionPicker(options());

        assertNull(picker.pick(v), "two tables are under the count trigger of 4");
        double score = LeveledCompactionPicker.levelZeroSpaceScore(v);
        assertTrue(score >= 1.5 && score < 2.5, "two units of level 0 over ten below: " + score);
        Compaction job = picker.pickAtRest(v);
        assertNotNull(job, "at rest, level 0 holds a fifth of the levels below");
        assertEquals(LevelTargets.LAST_LEVEL, job.outputLevel(), "the base level of a small store is the last");
        assertArrayEquals(new SsTable[] {newer, older, last}, job.inputs());
    }

    @Test
    void atRestLevelZeroUnderATenthOfTheLevelsBelowStays() throws IOException {
        SsTable last = table(30);
        SsTable flushed = table(2);
        Version v = version(new SsTable[] {flushed, last}, new int[] {0, LevelTargets.LAST_LEVEL}, new boolean[2]);
        LeveledCompactionPicker picker = new LeveledCompactionPicker(options());

        double score = LeveledCompactionPicker.levelZeroSpaceScore(v);
        assertTrue(score > 0.5 && score < 1, "two units over thirty: " + score);
        assertNull(picker.pickAtRest(v));
    }

    @Test
    void theCountTriggerStillRulesWhileWritesArriveAndAtRest() throws IOException {
        SsTable last = table(200);
        SsTable[] tables = {table(1), table(1), table(1), table(1), last};
        Version v = version(tables, new int[] {0, 0, 0, 0, LevelTargets.LAST_LEVEL}, new boolean[5]);
        LeveledCompactionPicker picker = new LeveledCompactionPicker(options());

        assertTrue(LeveledCompactionPicker.levelZeroSpaceScore(v) < 1, "four units over two hundred");
        Compaction writing = picker.pick(v);
        Compaction resting = picker.pickAtRest(v);
        assertNotNull(writing, "four tables reach the trigger");
        assertNotNull(resting);
        assertEquals(4, levelZeroInputs(writing, v));
        assertArrayEquals(writing.inputs(), resting.inputs());
    }

    @Test
    void oneTableOverAnEmptyStoreHoldsNothingToDropAndStays() throws IOException {
        SsTable first = table(1);
        LeveledCompactionPicker picker = new LeveledCompactionPicker(options());
        assertNull(picker.pickAtRest(version(new SsTable[] {first}, new int[1], new boolean[1])));

        SsTable second = table(1);
        Version two = version(new SsTable[] {second, first}, new int[2], new boolean[2]);
        Compaction job = picker.pickAtRest(two);
        assertNotNull(job, "two overlapping tables may hold versions of the same keys");
        assertEquals(LevelTargets.LAST_LEVEL, job.outputLevel());
        assertEquals(2, job.inputs().length);
    }

    @Test
    void inheritedTablesAreNotCountedBySizeAndStillMoveAloneOldestFirst() throws IOException {
        SsTable last = table(10);
        SsTable flushed = table(1);
        SsTable newerInherited = table(5);
        SsTable oldestInherited = table(5);
        SsTable[] tables = {flushed, newerInherited, oldestInherited, last};
        Version v = version(tables, new int[] {0, 0, 0, LevelTargets.LAST_LEVEL},
                new boolean[] {false, true, true, false});
        LeveledCompactionPicker picker = new LeveledCompactionPicker(options());

        double score = LeveledCompactionPicker.levelZeroSpaceScore(v);
        assertTrue(score < 1.5, "only the flushed unit counts, not the ten inherited ones: " + score);
        Compaction job = picker.pickAtRest(v);
        assertNotNull(job);
        assertEquals(oldestInherited, job.inputs()[0], "the oldest inherited table moves first, alone");
        assertEquals(1, levelZeroInputs(job, v));
        assertArrayEquals(picker.pick(v).inputs(), job.inputs(), "at rest as while writes arrive");
    }

    /** Level 0 at the writers' slowdown (trigger 2) over a level 5 ten times over its limit and a level 6. */
    private Version levelZeroAtTheSlowdownOverALevelFarBehind(DaoOptions options) throws IOException {
        int atSlowdown = WriteController.SLOWDOWN_FACTOR * options.compactionTrigger();
        SsTable[] all = new SsTable[atSlowdown + 2];
        int[] levels = new int[all.length];
        for (int i = 0; i < atSlowdown; i++) {
            all[i] = table(1);
        }
        all[atSlowdown] = table(100);
        levels[atSlowdown] = 5;
        all[atSlowdown + 1] = table(100);
        levels[atSlowdown + 1] = LevelTargets.LAST_LEVEL;
        return version(all, levels, new boolean[all.length]);
    }

    private DaoOptions smallLevels() {
        return options().toBuilder().compactionTrigger(2).targetTableBytes(16 << 10).levelBaseBytes(64 << 10).build();
    }

    @Test
    void levelZeroAtTheWritersSlowdownGoesFirstWhateverTheDeeperScores() throws IOException {
        DaoOptions options = smallLevels();
        Version v = levelZeroAtTheSlowdownOverALevelFarBehind(options);
        LeveledCompactionPicker picker = new LeveledCompactionPicker(options);
        LevelTargets targets = picker.targets(v);
        long levelFive = v.tables[v.tables.length - 2].fileSize();
        assertTrue(levelFive > 2 * WriteController.SLOWDOWN_FACTOR * targets.maxBytes()[5],
                "level 5 scores above level 0: " + levelFive + " over " + targets.maxBytes()[5]);

        Compaction job = picker.pick(v);
        assertNotNull(job);
        assertEquals(WriteController.SLOWDOWN_FACTOR * options.compactionTrigger(), levelZeroInputs(job, v),
                "every flushed level 0 table goes down first");

        Version below = version(java.util.Arrays.copyOfRange(v.tables, 1, v.tables.length),
                java.util.Arrays.copyOfRange(v.levels, 1, v.levels.length), new boolean[v.tables.length - 1]);
        assertEquals(0, levelZeroInputs(picker.pick(below), below), "one table fewer: level 5 by its score");
    }

    @Test
    void theDebtIsLevelZeroOnceDueAndEveryLevelsBytesOverItsLimit() throws IOException {
        DaoOptions options = smallLevels();
        Version v = levelZeroAtTheSlowdownOverALevelFarBehind(options);
        LevelTargets targets = new LeveledCompactionPicker(options).targets(v);
        long levelZero = 0;
        for (int i = 0; i < v.tables.length - 2; i++) {
            levelZero += v.tables[i].fileSize();
        }
        long overAtFive = v.tables[v.tables.length - 2].fileSize() - targets.maxBytes()[5];
        assertEquals(levelZero + overAtFive, CompactionDebt.of(v, options.compactionTrigger(), options.levelBaseBytes()));

        Version oneFlushed = version(new SsTable[] {v.tables[0], v.tables[v.tables.length - 1]},
                new int[] {0, LevelTargets.LAST_LEVEL}, new boolean[2]);
        assertEquals(0, CompactionDebt.of(oneFlushed, options.compactionTrigger(), options.levelBaseBytes()),
                "level 0 under its trigger over the last level alone owes nothing");
    }
}
