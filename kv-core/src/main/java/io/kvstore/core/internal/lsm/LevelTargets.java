package io.kvstore.core.internal.lsm;

/**
 * How many bytes each level of leveled compaction may hold, sized from the data in the spirit of
 * RocksDB's {@code level_compaction_dynamic_level_bytes}: the last level holds what it holds and each
 * level above it a tenth of the level below, with no floor, so the levels above the last hold at most
 * about a ninth of it and shadowed versions, which can only be there, take at most about a ninth more
 * space whatever the size of the store. Level 0 compacts into the <em>base level</em>, the deepest level
 * whose share is at most {@code levelBaseBytes} (and so more than a tenth of it); the levels between 0
 * and the base level stay empty, and a store no larger than {@code levelBaseBytes} compacts level 0
 * straight into its last level.
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
        // The share of the first non-empty level if the largest level were the last.
        double size = largest;
        for (int level = last - 1; level >= firstNonEmpty; level--) {
            size /= MULTIPLIER;
        }
        int base = firstNonEmpty;
        if (size <= baseMin) {
            // More levels hold data than the data needs; level 0 cannot skip them, as their data is
            // older than its own, so the first of them takes the smallest share a base level may have.
            size = baseMin + 1;
        } else {
            while (base > 1 && size > levelBaseBytes) {
                base--;
                size /= MULTIPLIER;
            }
            // Only level 1 can be left over levelBaseBytes; it holds no more than that.
            size = Math.min(size, levelBaseBytes);
        }
        for (int level = base; level < last; level++) {
            maxBytes[level] = (long) Math.min(Long.MAX_VALUE, size);
            size *= MULTIPLIER;
        }
        return new LevelTargets(base, last, maxBytes);
    }
}
