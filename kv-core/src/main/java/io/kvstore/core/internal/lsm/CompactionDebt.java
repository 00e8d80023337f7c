package io.kvstore.core.internal.lsm;

/**
 * The bytes leveled compaction has yet to move down a level before every level is within its limit:
 * level 0's flushed tables once they are due (the trigger reached), every inherited level 0 table, and
 * each level from the base level to the last but one by what it holds over its {@link LevelTargets}
 * limit. RocksDB's estimate of pending compaction bytes also counts what each move rewrites in the level
 * below; this one counts what has to move, so that it does not jump by a level's size as the base level
 * changes (the flipping estimate behind RocksDB's long stalls).
 */
final class CompactionDebt {
    private CompactionDebt() {
    }

    /** The debt of {@code v} with {@code trigger} tables per level 0 compaction and base level bytes {@code levelBaseBytes}. */
    static long of(Version v, int trigger, long levelBaseBytes) {
        long[] bytes = new long[v.deepestLevel() + 1];
        long flushedLevelZero = 0;
        long inherited = 0;
        for (int i = 0; i < v.tables.length; i++) {
            long size = v.tables[i].fileSize();
            if (v.levels[i] > 0) {
                bytes[v.levels[i]] += size;
            } else if (v.inherited[i]) {
                inherited += size;
            } else {
                flushedLevelZero += size;
            }
        }
        long debt = inherited + (v.flushedLevelZeroTables >= trigger ? flushedLevelZero : 0);
        LevelTargets targets = LevelTargets.of(bytes, levelBaseBytes);
        for (int level = targets.baseLevel(); level < targets.lastLevel() && level < bytes.length; level++) {
            debt += Math.max(0, bytes[level] - targets.maxBytes()[level]);
        }
        return debt;
    }
}
