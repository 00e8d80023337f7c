package io.kvstore.core.internal.lsm;

import io.kvstore.core.internal.table.SsTable;

import java.util.Arrays;

/**
 * What one compaction merges: a contiguous run of a version's tables (newest first), so that the
 * output takes their place in the recency order, and below which timestamp it may leave tombstones out.
 * It holds no {@link Version}: a version pins its memtables, and a merge that outlives several
 * memtable switches would keep them all on the heap.
 *
 * @param dropTombstonesBelow tombstones older than this are shadowing nothing: {@link Long#MIN_VALUE}
 *                            unless the run reaches the oldest table (size-tiered) or no table outside
 *                            the inputs holds an older version of their keys (leveled)
 * @param outputLevel         0: the output takes the inputs' place (size-tiered); 1 or deeper: the
 *                            outputs go to that level (leveled)
 */
record Compaction(SsTable[] inputs, long dropTombstonesBelow, int outputLevel) {

    /** Leveled: {@code inputs} merged into tables of {@code outputLevel}. */
    static Compaction leveled(Version v, SsTable[] inputs, int outputLevel) {
        return new Compaction(inputs, minTimestampOutside(v, inputs), outputLevel);
    }

    /**
     * The smallest timestamp in {@code v}'s memtables and in its tables outside {@code inputs} whose key
     * range meets theirs: a tombstone older than that shadows nothing outside the inputs, since every
     * other version of its key there has a higher timestamp and wins anyway.
     */
    static long minTimestampOutside(Version v, SsTable[] inputs) {
        long min = v.active.minTimestamp();
        for (Memtable memtable : v.frozen) {
            min = Math.min(min, memtable.minTimestamp());
        }
        byte[] first = inputs[0].firstKey();
        byte[] last = inputs[0].lastKey();
        for (SsTable input : inputs) {
            first = Arrays.compareUnsigned(input.firstKey(), first) < 0 ? input.firstKey() : first;
            last = Arrays.compareUnsigned(input.lastKey(), last) > 0 ? input.lastKey() : last;
        }
        for (SsTable table : v.tables) {
            if (!contains(inputs, table) && Arrays.compareUnsigned(table.firstKey(), last) <= 0
                    && Arrays.compareUnsigned(table.lastKey(), first) >= 0) {
                min = Math.min(min, table.minTimestamp());
            }
        }
        return min;
    }

    private static boolean contains(SsTable[] tables, SsTable table) {
        for (SsTable t : tables) {
            if (t == table) {
                return true;
            }
        }
        return false;
    }

    /** The {@code count} oldest tables of {@code v}, or null if it has none. */
    static Compaction oldest(Version v, int count) {
        int n = v.tables.length;
        return n == 0 ? null : of(v, Math.max(0, n - count), n);
    }

    /** Merging {@code v.tables[start, end)}. */
    static Compaction of(Version v, int start, int end) {
        SsTable[] inputs = Arrays.copyOfRange(v.tables, start, end);
        long dropTombstonesBelow = Long.MIN_VALUE;
        if (end == v.tables.length) {
            // Nothing older can hide behind a tombstone; keep it only while a newer source may hold an
            // older-timestamped version it must still shadow.
            dropTombstonesBelow = minTimestampNewerThan(v, inputs[0]);
        }
        return new Compaction(inputs, dropTombstonesBelow, 0);
    }

    /** The smallest timestamp in {@code v}'s memtables and in its tables newer than {@code table}. */
    static long minTimestampNewerThan(Version v, SsTable table) {
        long min = v.active.minTimestamp();
        for (Memtable memtable : v.frozen) {
            min = Math.min(min, memtable.minTimestamp());
        }
        for (SsTable newer : v.tables) {
            if (newer == table) {
                break;
            }
            min = Math.min(min, newer.minTimestamp());
        }
        return min;
    }
}
