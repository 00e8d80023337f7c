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
    /** Binary min-heap of source indices ordered by (head key, source index). */
    private final int[] heap;
    private int heapSize;
    private boolean closed;

    @SuppressWarnings("unchecked")
    public MergeIterator(List<? extends CloseableIterator<Entry>> newestFirst) {
        int n = newestFirst.size();
        this.sources = newestFirst.toArray(new CloseableIterator[0]);
        this.heads = new Entry[n];
        this.heap = new int[n];
        try {
            for (int i = 0; i < n; i++) {
                if (sources[i].hasNext()) {
                    heads[i] = sources[i].next();
                    push(i);
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public boolean hasNext() {
        return heapSize > 0;
    }

    @Override
    public Entry next() {
        if (heapSize == 0) {
            throw new NoSuchElementException();
        }
        int first = pop();
        Entry winner = heads[first];
        byte[] key = winner.key();
        advance(first);
        while (heapSize > 0 && Arrays.equals(heads[heap[0]].key(), key)) {
            int other = pop();
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
            push(source);
        } else {
            heads[source] = null;
        }
    }

    private boolean less(int a, int b) {
        int c = Arrays.compareUnsigned(heads[a].key(), heads[b].key());
        return c < 0 || (c == 0 && a < b);
    }

    private void push(int source) {
        int i = heapSize++;
        heap[i] = source;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(heap[i], heap[parent])) {
                break;
            }
            swap(i, parent);
            i = parent;
        }
    }

    private int pop() {
        int top = heap[0];
        heap[0] = heap[--heapSize];
        int i = 0;
        while (true) {
            int left = 2 * i + 1;
            if (left >= heapSize) {
                break;
            }
            int smallest = left + 1 < heapSize && less(heap[left + 1], heap[left]) ? left + 1 : left;
            if (!less(heap[smallest], heap[i])) {
                break;
            }
            swap(i, smallest);
            i = smallest;
        }
        return top;
    }

    private void swap(int i, int j) {
        int t = heap[i];
        heap[i] = heap[j];
        heap[j] = t;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        heapSize = 0;
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
