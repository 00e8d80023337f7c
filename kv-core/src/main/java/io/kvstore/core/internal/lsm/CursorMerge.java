package io.kvstore.core.internal.lsm;

import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.table.SsTableWriter;
import io.kvstore.core.internal.table.TableCursor;
import io.kvstore.core.internal.util.IndexHeap;

import java.io.IOException;
import java.util.Arrays;

/**
 * A compaction's k-way merge of tables into one entry per key, read in place through
 * {@link TableCursor}s and written by copying stored bytes: unlike {@link io.kvstore.core.internal.util.MergeIterator}
 * it makes no object per entry, so a compaction leaves the collector little to do. Among versions of
 * one key, the one {@link Entry#compareVersions} ranks first wins (the newest table's on a complete tie).
 */
final class CursorMerge implements SortedEntries {
    private final TableCursor[] cursors;
    /** Cursor indices ordered by (current key, index); the cursor on the current entry is not in it. */
    private final IndexHeap heap;
    /** The cursor on the current entry, or -1 before the first and after the last. */
    private int current = -1;

    /** {@code newestFirst}: the tables to merge, newest first. */
    CursorMerge(SsTable[] newestFirst) throws IOException {
        cursors = new TableCursor[newestFirst.length];
        heap = new IndexHeap(newestFirst.length, this::less);
        int shared = sharedPrefixLength(newestFirst);
        for (int i = 0; i < cursors.length; i++) {
            cursors[i] = newestFirst[i].cursor(shared);
            if (cursors[i].advance()) {
                heap.push(i);
            }
        }
    }

    /**
     * How many leading bytes every key of the tables shares: those of the smallest first key and the
     * largest last key, since any key between two keys that begin alike begins so too.
     */
    static int sharedPrefixLength(SsTable[] tables) {
        if (tables.length == 0) {
            return 0;
        }
        byte[] first = tables[0].firstKey();
        byte[] last = tables[0].lastKey();
        for (SsTable table : tables) {
            byte[] f = table.firstKey();
            byte[] l = table.lastKey();
            first = Arrays.compareUnsigned(f, first) < 0 ? f : first;
            last = Arrays.compareUnsigned(l, last) > 0 ? l : last;
        }
        int mismatch = Arrays.mismatch(first, last);
        return mismatch < 0 ? first.length : mismatch;
    }

    @Override
    public boolean advance() throws IOException {
        if (current >= 0) {
            // Held until now: its bytes were being copied.
            moveOn(current);
            current = -1;
        }
        if (heap.size() == 0) {
            return false;
        }
        int winner = heap.pop();
        while (heap.size() > 0 && cursors[heap.peek()].compareKey(cursors[winner]) == 0) {
            int other = heap.pop();
            // Popped in table order among equal keys: an older table wins only if it ranks strictly first.
            if (cursors[other].compareVersion(cursors[winner]) > 0) {
                int loser = winner;
                winner = other;
                moveOn(loser);
            } else {
                moveOn(other);
            }
        }
        current = winner;
        return true;
    }

    @Override
    public long timestamp() {
        return cursors[current].timestamp();
    }

    @Override
    public boolean isTombstone() {
        return cursors[current].isTombstone();
    }

    @Override
    public long expiresAtMillis() {
        return cursors[current].expiresAtMillis();
    }

    @Override
    public void addTo(SsTableWriter writer, boolean asTombstone) throws IOException {
        TableCursor cursor = cursors[current];
        if (asTombstone && !cursor.isTombstone()) {
            writer.add(Entry.tombstone(cursor.key(), cursor.timestamp()));
        } else {
            writer.add(cursor);
        }
    }

    /** Advances cursor {@code i} past its current key and puts it back in the heap unless it is done. */
    private void moveOn(int i) throws IOException {
        if (cursors[i].advance()) {
            heap.push(i);
        }
    }

    private boolean less(int a, int b) {
        int c = cursors[a].compareKey(cursors[b]);
        return c < 0 || (c == 0 && a < b);
    }
}
