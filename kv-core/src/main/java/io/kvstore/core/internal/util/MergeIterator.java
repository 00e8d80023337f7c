package io.kvstore.core.internal.util;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;

import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A lazy k-way merge of sorted entry sources (memtables and tables alike) into one sorted stream
 * with one entry per key.
 *
 * <p>Sources are given newest first. Among entries with equal keys, the one
 * {@link Entry#compareVersions} ranks first wins (the newest source's on a complete tie). Each source
 * must yield strictly increasing keys.
 * Memory is one head entry per source, whatever the length of the streams.
 */
public final class MergeIterator implements CloseableIterator<Entry> {
    private final CloseableIterator<Entry>[] sources;
    private final Entry[] heads;
    /** Source indices ordered by (head key, source index). */
    private final IndexHeap heap;
    private boolean closed;

    @SuppressWarnings("unchecked")
    public MergeIterator(List<? extends CloseableIterator<Entry>> newestFirst) {
        int n = newestFirst.size();
        this.sources = newestFirst.toArray(new CloseableIterator[0]);
        this.heads = new Entry[n];
        this.heap = new IndexHeap(n, this::less);
        try {
            for (int i = 0; i < n; i++) {
                if (sources[i].hasNext()) {
                    heads[i] = sources[i].next();
                    heap.push(i);
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        return heap.size() > 0;
    }

    @Override
    public Entry next() {
        if (heap.size() == 0) {
            throw new NoSuchElementException();
        }
        int first = heap.pop();
        Entry winner = heads[first];
        byte[] key = winner.key();
        advance(first);
        while (heap.size() > 0 && Arrays.equals(heads[heap.peek()].key(), key)) {
            int other = heap.pop();
            // Popped in source order among equal keys: an older source wins only if it ranks strictly first.
            if (Entry.compareVersions(heads[other], winner) > 0) {
                winner = heads[other];
            }
            advance(other);
        }
        return winner;
    }

    private void advance(int source) {
        if (sources[source].hasNext()) {
            heads[source] = sources[source].next();
            heap.push(source);
        } else {
            heads[source] = null;
        }
    }

    private boolean less(int a, int b) {
        int c = Arrays.compareUnsigned(heads[a].key(), heads[b].key());
        return c < 0 || (c == 0 && a < b);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        heap.clear();
        RuntimeException failure = null;
        for (CloseableIterator<Entry> source : sources) {
            try {
                source.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
