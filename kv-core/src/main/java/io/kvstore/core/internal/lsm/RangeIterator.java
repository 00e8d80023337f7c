package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.UnaryOperator;

/**
 * A merged range over a snapshot, with values expired at the snapshot's instant shown as tombstones;
 * closing it releases the snapshot's tables (deferred deletions proceed). A table's failure on the way
 * is handed to {@code damaged}, which quarantines a damaged table and says how to report it.
 */
final class RangeIterator implements CloseableIterator<Entry> {
    private final CloseableIterator<Entry> merged;
    private final SsTable[] retained;
    private final long nowMillis;
    private final UnaryOperator<IOException> damaged;
    private boolean closed;

    RangeIterator(CloseableIterator<Entry> merged, SsTable[] retained, long nowMillis,
                  UnaryOperator<IOException> damaged) {
        this.merged = merged;
        this.retained = retained;
        this.nowMillis = nowMillis;
        this.damaged = damaged;
    }

    @Override
    public boolean hasNext() {
        try {
            return !closed && merged.hasNext();
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException(damaged.apply(e.getCause()));
        }
    }

    @Override
    public Entry next() {
        if (closed) {
            throw new IllegalStateException("range iterator is closed");
        }
        Entry next;
        try {
            next = merged.next();
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException(damaged.apply(e.getCause()));
        }
        return next.expires() ? next.asOf(nowMillis) : next;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            merged.close();
        } finally {
            VersionSet.release(retained);
        }
    }
}
