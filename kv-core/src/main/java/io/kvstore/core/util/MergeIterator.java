package io.kvstore.core.util;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * A lazy k-way merge of sorted entry iterators (memtables and tables alike) into one sorted stream
 * with one entry per key: the version with the highest timestamp, and between equal timestamps the
 * one from the source listed first (the newer source). Memory is one entry per source.
 */
public final class MergeIterator implements CloseableIterator<Entry> {
    private final PriorityQueue<Source> heap;
    private final List<Source> sameKey = new ArrayList<>();
    private final Runnable onClose;
    private boolean closed;

    /**
     * @param sources sorted iterators, newest source first
     * @param onClose run once when this iterator is closed (releases what the sources read)
     */
    public MergeIterator(List<? extends Iterator<Entry>> sources, Runnable onClose) {
        this.onClose = onClose;
        this.heap = new PriorityQueue<>(Math.max(1, sources.size()), (a, b) -> {
            int c = Bytes.compare(a.head.key(), b.head.key());
            return c != 0 ? c : Integer.compare(a.rank, b.rank);
        });
        for (int i = 0; i < sources.size(); i++) {
            Source s = new Source(sources.get(i), i);
            if (s.advance()) {
                heap.add(s);
            }
        }
    }

    @Override
    public boolean hasNext() {
        return !heap.isEmpty();
    }

    @Override
    public Entry next() {
        Source first = heap.poll();
        if (first == null) {
            throw new NoSuchElementException();
        }
        Entry best = first.head;
        sameKey.add(first);
        while (!heap.isEmpty() && Bytes.compare(heap.peek().head.key(), best.key()) == 0) {
            Source s = heap.poll();
            if (s.head.timestamp() > best.timestamp()) { // equal timestamps: the earlier (newer) source keeps it
                best = s.head;
            }
            sameKey.add(s);
        }
        for (Source s : sameKey) {
            if (s.advance()) {
                heap.add(s);
            }
        }
        sameKey.clear();
        return best;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            heap.clear();
            onClose.run();
        }
    }

    private static final class Source {
        final Iterator<Entry> iterator;
        final int rank;
        Entry head;

        Source(Iterator<Entry> iterator, int rank) {
            this.iterator = iterator;
            this.rank = rank;
        }

        boolean advance() {
            if (iterator.hasNext()) {
                head = iterator.next();
                return true;
            }
            head = null;
            return false;
        }
    }
}
