package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;

import java.util.NoSuchElementException;

/**
 * A range over one level of leveled compaction, whose tables are disjoint and in key order, with one
 * table open at a time: the first that may hold {@code from}, then each next one when the range
 * reaches it. Merged as separate sources, a level's tables would each be sought and have a first
 * entry decoded on every range read, most of them far beyond the range, and every step of the merge
 * would choose among them.
 */
final class LevelIterator implements CloseableIterator<Entry> {
    private final SsTable[] tables;
    private final int end;
    private final byte[] to;
    private final boolean fillCache;
    /** The table {@link #current} moves on to once done. */
    private int nextTable;
    /** The open table's range, or null once the level is done. */
    private CloseableIterator<Entry> current;

    /**
     * The entries of {@code [from, to)} ({@code null} bounds are open) in {@code tables[start, end)}, one
     * level's tables in key order; {@code fillCache} as {@link SsTable#iterator} or {@link SsTable#passingIterator}.
     */
    LevelIterator(SsTable[] tables, int start, int end, byte[] from, byte[] to, boolean fillCache) {
        this.tables = tables;
        this.end = end;
        this.to = to;
        this.fillCache = fillCache;
        nextTable = from == null ? start : Version.firstNotEndingBefore(tables, start, end, from);
        current = openNext(from);
    }

    /** The range of the next table from {@code from} on, or null if the range ends before it. */
    private CloseableIterator<Entry> openNext(byte[] from) {
        if (nextTable == end || !tables[nextTable].overlaps(null, to)) {
            nextTable = end;
            return null;
        }
        return tableRange(tables[nextTable++], from, to, fillCache);
    }

    /** {@code table}'s entries of {@code [from, to)}, through the block cache if {@code fillCache}. */
    static CloseableIterator<Entry> tableRange(SsTable table, byte[] from, byte[] to, boolean fillCache) {
        return fillCache ? table.iterator(from, to) : table.passingIterator(from, to);
    }

    @Override
    public boolean hasNext() {
        while (current != null) {
            if (current.hasNext()) {
                return true;
            }
            current.close();
            current = openNext(null);
        }
        return false;
    }

    @Override
    public Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.next();
    }

    @Override
    public void close() {
        if (current != null) {
            current.close();
            current = null;
        }
        nextTable = end;
    }
}
