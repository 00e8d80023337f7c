package io.kvstore.core.lsm;

import io.kvstore.core.table.SsTable;

import java.util.Arrays;

/**
 * What one compaction merges: a contiguous run of a version's tables (newest first), so that the
 * output takes their place in the recency order, and below which timestamp it may leave tombstones out.
 * It holds no {@link Version}: a version pins its memtables, and a merge that outlives several
 * memtable switches would keep them all on the heap.
 *
 * @param dropTombstonesBelow tombstones older than this are shadowing nothing: {@link Long#MIN_VALUE}
 *                            unless the run reaches the oldest table
 */
record Compaction(SsTable[] inputs, long dropTombstonesBelow) {

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
        return new Compaction(inputs, dropTombstonesBelow);
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
