package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;


/**
 * A merged range over a snapshot, with values expired at the snapshot's instant shown as tombstones;
 * closing it releases the snapshot's tables (deferred deletions proceed).
 */
final class RangeIterator implements CloseableIterator<Entry> {
    private final CloseableIterator<Entry> merged;
    private final SsTable[] retained;
    private final long nowMillis;
    private boolean closed;

    RangeIterator(CloseableIterator<Entry> merged, SsTable[] retained, long nowMillis) {
        this.merged = merged;
        this.retained = retained;
        this.nowMillis = nowMillis;
    }

    @Override
    public boolean hasNext() {
        return !closed && merged.hasNext();
    }

    @Override
    public Entry next() {
        if (closed) {
            throw new IllegalStateException("range iterator is closed");
        }
        Entry next = merged.next();
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
