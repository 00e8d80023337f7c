package io.kvstore.core.lsm;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;

import java.util.Iterator;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The in-memory, sorted, concurrent buffer of recent writes, covered by one log file.
 *
 * <p>Each key maps to a chain of versions, newest sequence number first; each link holds the entry
 * visible at its sequence number (highest timestamp, later write on ties), so a point read takes the
 * head and a snapshot read walks to the first link at or below its sequence number.
 *
 * <p>REQUIRES: {@link #put} under the store's write lock; reads need no lock.
 */
final class Memtable {
    /** Per-entry bookkeeping beyond key and value bytes: skip-list node, chain link, entry object. */
    private static final int OVERHEAD_BYTES = 96;

    private final ConcurrentSkipListMap<byte[], Link> map = new ConcurrentSkipListMap<>(Bytes.ORDER);
    private final long logNumber;
    private volatile long sizeBytes;
    private volatile long minTimestamp = Long.MAX_VALUE;
    private volatile long maxTimestamp = Long.MIN_VALUE;

    private static final class Link {
        final long sequence;
        final Entry visible;
        final Link older;

        Link(long sequence, Entry visible, Link older) {
            this.sequence = sequence;
            this.visible = visible;
            this.older = older;
        }
    }

    Memtable(long logNumber) {
        this.logNumber = logNumber;
    }

    /** The number of the log file holding this memtable's writes. */
    long logNumber() {
        return logNumber;
    }

    void put(Entry entry, long sequence) {
        byte[] key = entry.key();
        // One traversal for a new key; writers are serialised, so the head cannot change under us.
        Link head = map.putIfAbsent(key, new Link(sequence, entry, null));
        if (head != null && entry.timestamp() >= head.visible.timestamp()) {
            map.put(key, new Link(sequence, entry, head));
        }
        // else: an older timestamp loses to what is there; it changes no version a reader can see.
        sizeBytes += OVERHEAD_BYTES + key.length + (entry.isTombstone() ? 0 : entry.value().length);
        long ts = entry.timestamp();
        if (ts < minTimestamp) {
            minTimestamp = ts;
        }
        if (ts > maxTimestamp) {
            maxTimestamp = ts;
        }
    }

    /** The visible version of {@code key} here, or {@code null}. */
    Entry get(byte[] key) {
        Link head = map.get(key);
        return head == null ? null : head.visible;
    }

    boolean isEmpty() {
        return map.isEmpty();
    }

    int keyCount() {
        return map.size();
    }

    long sizeBytes() {
        return sizeBytes;
    }

    long minTimestamp() {
        return minTimestamp;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    /** Visible versions as of {@code sequence} (inclusive) of keys in {@code [from, to)}. */
    CloseableIterator<Entry> iterator(byte[] from, byte[] to, long sequence) {
        NavigableMap<byte[], Link> view = map;
        if (from != null && to != null) {
            view = Bytes.compare(from, to) >= 0 ? map.subMap(from, true, from, false) : map.subMap(from, true, to, false);
        } else if (from != null) {
            view = map.tailMap(from, true);
        } else if (to != null) {
            view = map.headMap(to, false);
        }
        return new SnapshotIterator(view.values().iterator(), sequence);
    }

    private static final class SnapshotIterator implements CloseableIterator<Entry> {
        private final Iterator<Link> links;
        private final long sequence;
        private Entry next;

        SnapshotIterator(Iterator<Link> links, long sequence) {
            this.links = links;
            this.sequence = sequence;
            advance();
        }

        private void advance() {
            while (links.hasNext()) {
                Link link = links.next();
                while (link != null && link.sequence > sequence) {
                    link = link.older;
                }
                if (link != null) {
                    next = link.visible;
                    return;
                }
            }
            next = null;
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public Entry next() {
            Entry result = next;
            if (result == null) {
                throw new NoSuchElementException();
            }
            advance();
            return result;
        }

        @Override
        public void close() {
            next = null;
        }
    }

    @Override
    public String toString() {
        return "Memtable{log " + logNumber + ", " + map.size() + " keys, " + sizeBytes + " bytes}";
    }
}
