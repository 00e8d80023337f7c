package io.kvstore.core.lsm;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import io.kvstore.core.log.WalWriter;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The in-memory, sorted, concurrent part of the store, and the write-ahead log file that makes it
 * durable. Writes come in under the store's write lock; reads are lock-free. Sized in approximate
 * bytes so it is frozen and flushed at the configured threshold.
 */
final class MemTable {
    /** Rough per-entry cost of the skip list node, entry object and arrays' headers. */
    private static final int ENTRY_OVERHEAD = 96;

    private final ConcurrentSkipListMap<byte[], Entry> entries = new ConcurrentSkipListMap<>(Bytes.ORDER);
    final WalWriter wal;
    final long walId;
    private volatile long sizeBytes;
    private volatile long maxTimestamp = Long.MIN_VALUE;

    MemTable(WalWriter wal, long walId) {
        this.wal = wal;
        this.walId = walId;
    }

    /** Keeps the newer version: a higher timestamp, or an equal one written later. Caller holds the write lock. */
    void put(Entry entry) {
        Entry previous = entries.get(entry.key());
        if (previous != null && previous.timestamp() > entry.timestamp()) {
            return;
        }
        entries.put(entry.key(), entry);
        sizeBytes += entry.key().length + (entry.value() == null ? 0 : entry.value().length) + ENTRY_OVERHEAD;
        if (entry.timestamp() > maxTimestamp) {
            maxTimestamp = entry.timestamp();
        }
    }

    Entry get(byte[] key) {
        return entries.get(key);
    }

    Iterator<Entry> iterator(byte[] from, byte[] to) {
        NavigableMap<byte[], Entry> view = entries;
        if (from != null && to != null) {
            view = entries.subMap(from, true, to, false);
        } else if (from != null) {
            view = entries.tailMap(from, true);
        } else if (to != null) {
            view = entries.headMap(to, false);
        }
        return view.values().iterator();
    }

    long sizeBytes() {
        return sizeBytes;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    int count() {
        return entries.size();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }
}
