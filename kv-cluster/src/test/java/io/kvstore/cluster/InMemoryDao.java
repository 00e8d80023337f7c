package io.kvstore.cluster;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;
import java.io.IOException;
import java.util.Iterator;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** A {@link Dao} in a sorted map, with the Dao's newest-timestamp-wins rule; can be told to fail. */
public final class InMemoryDao implements Dao {
    private final ConcurrentSkipListMap<byte[], Entry> entries = new ConcurrentSkipListMap<>(Bytes.ORDER);
    public volatile IOException failure;

    @Override
    public Entry get(byte[] key) throws IOException {
        throwIfFailing();
        return entries.get(key);
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        throwIfFailing();
        entries.merge(entry.key(), entry, (old, now) -> now.timestamp() >= old.timestamp() ? now : old);
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        throwIfFailing();
        NavigableMap<byte[], Entry> view = entries;
        if (from != null) {
            view = view.tailMap(from, true);
        }
        if (to != null) {
            view = view.headMap(to, false);
        }
        Iterator<Entry> iterator = view.values().iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return iterator.hasNext();
            }

            @Override
            public Entry next() {
                return iterator.next();
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public long cleanup(KeyFilter keep) throws IOException {
        throwIfFailing();
        long dropped = 0;
        for (byte[] key : entries.keySet()) {
            if (!keep.keeps(key) && entries.remove(key) != null) {
                dropped++;
            }
        }
        return dropped;
    }

    @Override
    public void flush() {
    }

    @Override
    public void compact() {
    }

    @Override
    public void close() {
    }

    private void throwIfFailing() throws IOException {
        IOException e = failure;
        if (e != null) {
            throw e;
        }
    }
}
