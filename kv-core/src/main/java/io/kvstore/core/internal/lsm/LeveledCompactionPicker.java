package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.internal.table.SsTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Leveled compaction (LevelDB's scheme, with RocksDB's dynamic level sizes and choice of table): level 0
 * holds flushed tables, which may overlap; each deeper level holds tables that do not, up to the limits
 * of {@link LevelTargets}, which sizes the levels from the data so that the last holds most of it. Each
 * level gets a score: level 0 its table count over {@link DaoOptions#compactionTrigger()}, a level
 * between the base level and the last its bytes over its limit; the highest score of at least 1 is
 * compacted, except that level 0 goes first once it holds the writers' slowdown. Level 0 merges whole into the overlapping tables of the base level; a deeper level gives
 * the table that overlaps the fewest bytes of the next level for its own size (the cheapest to push
 * down) to the overlapping tables of the next. Outputs are cut at {@link DaoOptions#targetTableBytes()}.
 * So a job is bounded: level 0 (at most the writers' stop, {@link WriteController#STOP_FACTOR} times the
 * trigger, of flushed tables) and a base level of at most about {@link DaoOptions#levelBaseBytes()}, or
 * one table and the tables it overlaps in the next level, about ten.
 *
 * <p>Inherited level 0 tables ({@link Version#inherited}: those written under size-tiered compaction,
 * which may be many and large) are not merged with the flushed ones: each makes level 0 due by itself,
 * and while fewer than the trigger of flushed tables wait, the oldest (under size-tiered, the largest)
 * goes alone into the base level. So flushed tables are never held up by more than one such move, and
 * the store ends in levels however many it inherited.
 *
 * <p>A store at rest ({@link #pickAtRest}) also scores level 0 by size: its flushed tables' bytes over
 * {@link #AT_REST_LEVEL_ZERO_SHARE} of the bytes of the levels below. The count trigger alone leaves up
 * to trigger - 1 flushed tables of shadowed versions over a store once writes stop, which on a store
 * a few memtables large is a large share of it; bounding that by size while writes arrive would merge
 * level 0 into the whole of such a store every second flush, where at rest one merge suffices.
 */
final class LeveledCompactionPicker {
    /**
     * The share of the levels below that level 0 may hold at rest: a tenth, the share dynamic level
     * sizes give all the levels between it and the last, so that at rest old versions take no more
     * room in level 0 than they may in the levels under it.
     */
    static final double AT_REST_LEVEL_ZERO_SHARE = 0.1;

    private final DaoOptions options;

    LeveledCompactionPicker(DaoOptions options) {
        this.options = options;
    }

    /** The level sizes the picker works with in {@code v}. */
    LevelTargets targets(Version v) {
        long[] bytes = new long[v.deepestLevel() + 1];
        for (int i = 0; i < v.tables.length; i++) {
            bytes[v.levels[i]] += v.tables[i].fileSize();
        }
        return LevelTargets.of(bytes, options.levelBaseBytes());
    }

    /**
     * The compaction due in {@code v} once writes have stopped: {@link #pick}'s, or else its flushed
     * level 0 tables into the base level if they hold more than {@link #AT_REST_LEVEL_ZERO_SHARE} of the
     * bytes below them; null if neither is due.
     */
    Compaction pickAtRest(Version v) {
        Compaction due = pick(v);
        if (due != null || levelZeroSpaceScore(v) < 1) {
            return due;
        }
        return levelZero(v, flushedLevelZero(v), targets(v).baseLevel());
    }

    /**
     * Level 0's score by size at rest: its flushed tables' bytes over {@link #AT_REST_LEVEL_ZERO_SHARE}
     * of the bytes of the levels below. 0 if it holds one table over nothing else, which holds no
     * shadowed version that a merge could drop.
     */
    static double levelZeroSpaceScore(Version v) {
        long levelZero = 0;
        long below = 0;
        for (int i = 0; i < v.tables.length; i++) {
            if (v.levels[i] > 0) {
                below += v.tables[i].fileSize();
            } else if (!v.inherited[i]) {
                levelZero += v.tables[i].fileSize();
            }
        }
        if (below == 0) {
            return v.flushedLevelZeroTables > 1 ? Double.POSITIVE_INFINITY : 0;
        }
        return levelZero / (AT_REST_LEVEL_ZERO_SHARE * below);
    }

    /** The compaction due in {@code v}, or null if no level scores 1 or more. */
    Compaction pick(Version v) {
        LevelTargets targets = targets(v);
        long[] bytes = new long[targets.lastLevel() + 1];
        for (int i = 0; i < v.tables.length; i++) {
            bytes[v.levels[i]] += v.tables[i].fileSize();
        }
        double bestScore = v.levelZeroTables / (double) options.compactionTrigger();
        if (v.inheritedTables() > 0) {
            bestScore = Math.max(1, bestScore);
        }
        int bestLevel = 0;
        // From the writers' slowdown on, level 0 comes first whatever the deeper levels' scores: every
        // write waits on it, none on them.
        boolean levelZeroFirst = v.flushedLevelZeroTables >= WriteController.SLOWDOWN_FACTOR * options.compactionTrigger();
        for (int level = targets.baseLevel(); level < targets.lastLevel() && !levelZeroFirst; level++) {
            double score = bytes[level] / (double) targets.maxBytes()[level];
            if (score > bestScore) {
                bestScore = score;
                bestLevel = level;
            }
        }
        if (bestScore < 1) {
            return null;
        }
        if (bestLevel > 0) {
            return fromLevel(v, bestLevel);
        }
        return v.flushedLevelZeroTables >= options.compactionTrigger() || v.inheritedTables() == 0
                ? levelZero(v, flushedLevelZero(v), targets.baseLevel())
                : levelZero(v, List.of(oldestInherited(v)), targets.baseLevel());
    }

    /**
     * Every table of {@code v} merged into its last level ({@link LevelTargets#LAST_LEVEL}, or deeper if
     * a table is): {@link io.kvstore.core.Dao#compact()}.
     */
    static Compaction all(Version v) {
        return v.tables.length == 0 ? null
                : Compaction.leveled(v, v.tables.clone(), Math.max(LevelTargets.LAST_LEVEL, v.deepestLevel()));
    }

    /** The level 0 tables of {@code v} flushed under leveled compaction (not inherited), newest first. */
    private static List<SsTable> flushedLevelZero(Version v) {
        List<SsTable> flushed = new ArrayList<>();
        for (int i = 0; i < v.tables.length; i++) {
            if (v.levels[i] == 0 && !v.inherited[i]) {
                flushed.add(v.tables[i]);
            }
        }
        return flushed;
    }

    /** The oldest inherited table of {@code v} (level 0 is listed newest first). REQUIRES: one exists. */
    private static SsTable oldestInherited(Version v) {
        for (int i = v.levelZeroTables - 1; i >= 0; i--) {
            if (v.inherited[i]) {
                return v.tables[i];
            }
        }
        throw new IllegalStateException("no inherited table");
    }

    /** {@code levelZero} (tables of level 0) merged with the tables of {@code baseLevel} they overlap. */
    private static Compaction levelZero(Version v, List<SsTable> levelZero, int baseLevel) {
        List<SsTable> inputs = new ArrayList<>(levelZero);
        byte[] first = null;
        byte[] last = null;
        for (SsTable table : levelZero) {
            first = first == null || Arrays.compareUnsigned(table.firstKey(), first) < 0 ? table.firstKey() : first;
            last = last == null || Arrays.compareUnsigned(table.lastKey(), last) > 0 ? table.lastKey() : last;
        }
        addOverlapping(v, baseLevel, first, last, inputs);
        return Compaction.leveled(v, inputs.toArray(new SsTable[0]), baseLevel);
    }

    /**
     * The table of {@code level} whose overlap with the next level is smallest for its size, with the
     * tables of the next level it overlaps. Both levels are listed in key order and do not overlap
     * within themselves, so one pass over each finds every table's overlap.
     */
    private static Compaction fromLevel(Version v, int level) {
        SsTable chosen = null;
        double bestRatio = Double.MAX_VALUE;
        int next = 0;
        while (next < v.tables.length && v.levels[next] != level + 1) {
            next++;
        }
        for (int i = 0; i < v.tables.length; i++) {
            if (v.levels[i] != level) {
                continue;
            }
            SsTable table = v.tables[i];
            while (next < v.tables.length && v.levels[next] == level + 1
                    && Arrays.compareUnsigned(v.tables[next].lastKey(), table.firstKey()) < 0) {
                next++;
            }
            long overlap = 0;
            for (int j = next; j < v.tables.length && v.levels[j] == level + 1
                    && Arrays.compareUnsigned(v.tables[j].firstKey(), table.lastKey()) <= 0; j++) {
                overlap += v.tables[j].fileSize();
            }
            double ratio = overlap / (double) Math.max(1, table.fileSize());
            if (ratio < bestRatio) {
                bestRatio = ratio;
                chosen = table;
            }
        }
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
