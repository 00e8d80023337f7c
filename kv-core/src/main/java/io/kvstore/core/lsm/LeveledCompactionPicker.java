package io.kvstore.core.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.table.SsTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Leveled compaction (LevelDB's scheme): level 0 holds flushed tables, which may overlap; each deeper
 * level holds tables that do not, up to {@link DaoOptions#levelBaseBytes()} for level 1 and ten times
 * more per level below. Each level gets a score, as LevelDB and RocksDB score them: level 0 its table
 * count over {@link DaoOptions#compactionTrigger()}, a deeper level its bytes over its limit; the
 * highest score of at least 1 is compacted. Level 0 merges whole into the overlapping tables of level
 * 1; a deeper level gives one table, taken round-robin through its key space, to the overlapping
 * tables of the next. Outputs are cut at {@link DaoOptions#targetTableBytes()}, so a job is bounded
 * by one table and the tables it overlaps. REQUIRES: one compaction thread (the round-robin pointers).
 */
final class LeveledCompactionPicker {
    /** Each level may hold this many times the bytes of the level above. */
    static final int LEVEL_MULTIPLIER = 10;

    private final DaoOptions options;
    /** Per level, the last key of the table compacted last: the next pick starts after it. */
    private final byte[][] compactPointer = new byte[Manifest.MAX_LEVEL + 1][];

    LeveledCompactionPicker(DaoOptions options) {
        this.options = options;
    }

    /** The most bytes {@code level} (1 or deeper) may hold before it is compacted. */
    long maxBytes(int level) {
        double max = options.levelBaseBytes();
        for (int i = 1; i < level; i++) {
            max *= LEVEL_MULTIPLIER;
        }
        return (long) Math.min(Long.MAX_VALUE, max);
    }

    /** The compaction due in {@code v}, or null if no level scores 1 or more. */
    Compaction pick(Version v) {
        int deepest = v.deepestLevel();
        long[] bytes = new long[deepest + 1];
        int levelZero = 0;
        for (int i = 0; i < v.tables.length; i++) {
            bytes[v.levels[i]] += v.tables[i].fileSize();
            if (v.levels[i] == 0) {
                levelZero++;
            }
        }
        double bestScore = levelZero / (double) options.compactionTrigger();
        int bestLevel = 0;
        for (int level = 1; level <= deepest && level < Manifest.MAX_LEVEL; level++) {
            double score = bytes[level] / (double) maxBytes(level);
            if (score > bestScore) {
                bestScore = score;
                bestLevel = level;
            }
        }
        if (bestScore < 1) {
            return null;
        }
        return bestLevel == 0 ? levelZero(v) : fromLevel(v, bestLevel);
    }

    /** Every table of {@code v} merged into its deepest level (at least 1): {@link io.kvstore.core.Dao#compact()}. */
    static Compaction all(Version v) {
        return v.tables.length == 0 ? null
                : Compaction.leveled(v, v.tables.clone(), Math.max(1, v.deepestLevel()));
    }

    private Compaction levelZero(Version v) {
        List<SsTable> inputs = new ArrayList<>();
        byte[] first = null;
        byte[] last = null;
        for (int i = 0; i < v.tables.length; i++) {
            if (v.levels[i] == 0) {
                SsTable table = v.tables[i];
                inputs.add(table);
                first = first == null || Arrays.compareUnsigned(table.firstKey(), first) < 0 ? table.firstKey() : first;
                last = last == null || Arrays.compareUnsigned(table.lastKey(), last) > 0 ? table.lastKey() : last;
            }
        }
        addOverlapping(v, 1, first, last, inputs);
        return Compaction.leveled(v, inputs.toArray(new SsTable[0]), 1);
    }

    private Compaction fromLevel(Version v, int level) {
        SsTable chosen = null;
        SsTable firstOfLevel = null;
        byte[] pointer = compactPointer[level];
        for (int i = 0; i < v.tables.length; i++) {
            if (v.levels[i] != level) {
                continue;
            }
            if (firstOfLevel == null) {
                firstOfLevel = v.tables[i];
            }
            if (pointer == null || Arrays.compareUnsigned(v.tables[i].firstKey(), pointer) > 0) {
                chosen = v.tables[i];
                break;
            }
        }
        if (chosen == null) {
            chosen = firstOfLevel;
        }
        compactPointer[level] = chosen.lastKey();
        List<SsTable> inputs = new ArrayList<>();
        inputs.add(chosen);
        addOverlapping(v, level + 1, chosen.firstKey(), chosen.lastKey(), inputs);
        return Compaction.leveled(v, inputs.toArray(new SsTable[0]), level + 1);
    }

    /** Adds to {@code inputs} the tables of {@code level} whose key range meets {@code [first, last]}. */
    private static void addOverlapping(Version v, int level, byte[] first, byte[] last, List<SsTable> inputs) {
        for (int i = 0; i < v.tables.length; i++) {
            SsTable table = v.tables[i];
            if (v.levels[i] == level && Arrays.compareUnsigned(table.firstKey(), last) <= 0
                    && Arrays.compareUnsigned(table.lastKey(), first) >= 0) {
                inputs.add(table);
            }
        }
    }
}
