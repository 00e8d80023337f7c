package io.kvstore.core.internal.lsm;

/**
 * How many bytes each level of leveled compaction may hold, sized from the data as RocksDB's
 * {@code level_compaction_dynamic_level_bytes} sizes them: the last level holds what it holds, each
 * level above it a tenth of the level below, and level 0 compacts into the <em>base level</em>, the
 * deepest level whose share would exceed a tenth of {@code levelBaseBytes}; the levels between 0 and the
 * base level stay empty. So the last level holds about nine tenths of the data whatever its size, and
 * shadowed versions, which can only be in the levels above it, take at most about a ninth more space;
 * with fixed sizes (level 1 at {@code levelBaseBytes}, ten times more per level) the last level may
 * hold as little as a tenth of the data.
 *
 * @param baseLevel the level that level 0 compacts into
 * @param lastLevel the deepest level; it is never compacted for its size
 * @param maxBytes  per level, the bytes past which it is compacted into the next (levels from
 *                  {@code baseLevel} to {@code lastLevel - 1}; 0 elsewhere)
 */
record LevelTargets(int baseLevel, int lastLevel, long[] maxBytes) {
    /** Each level may hold this many times the bytes of the level above. */
    static final int MULTIPLIER = 10;
    /** The last level of a store whose deepest table is not deeper: levels 0 to 6, as RocksDB's default. */
    static final int LAST_LEVEL = 6;

    /** The targets for a store holding {@code bytes[level]} bytes at each level (index 0 ignored). */
    static LevelTargets of(long[] bytes, long levelBaseBytes) {
        int last = Math.max(LAST_LEVEL, bytes.length - 1);
        long[] maxBytes = new long[last + 1];
        int firstNonEmpty = 0;
        long largest = 0;
        for (int level = 1; level < bytes.length; level++) {
            if (bytes[level] > 0 && firstNonEmpty == 0) {
                firstNonEmpty = level;
            }
            largest = Math.max(largest, bytes[level]);
        }
        if (firstNonEmpty == 0) {
            // Nothing below level 0 yet: it compacts straight into the last level.
            return new LevelTargets(last, last, maxBytes);
        }
        long baseMin = levelBaseBytes / MULTIPLIER;
        // The size the first non-empty level would have if the largest level were the last.
        double size = largest;
        for (int level = last - 1; level >= firstNonEmpty; level--) {
            size /= MULTIPLIER;
        }
        int base = firstNonEmpty;
        double baseSize;
        if (size <= baseMin) {
            baseSize = baseMin + 1;
        } else {
            while (base > 1 && size > levelBaseBytes) {
                base--;
                size /= MULTIPLIER;
            }
            baseSize = Math.min(size, levelBaseBytes);
        }
        double levelSize = baseSize;
        for (int level = base; level < last; level++) {
            // No level's limit below levelBaseBytes: with smaller upper levels than level 0, every level 0
            // compaction would cascade through all of them.
            maxBytes[level] = (long) Math.min(Long.MAX_VALUE, Math.max(levelSize, levelBaseBytes));
            levelSize *= MULTIPLIER;
        }
        return new LevelTargets(base, last, maxBytes);
    }
}
