package io.kvstore.core.testing;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;
import java.io.IOException;

/** A store that hands every call to another: tests override what they watch or change. */
public class ForwardingDao implements Dao {
    private final Dao store;

    public ForwardingDao(Dao store) {
        this.store = store;
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        return store.get(key);
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        store.upsert(entry);
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        return store.range(from, to);
    }

    @Override
    public DaoProperties properties() {
        return store.properties();
    }

    @Override
    public void flush() throws IOException {
        store.flush();
    }

    @Override
    public void compact() throws IOException {
        store.compact();
    }

    @Override
    public long cleanup(KeyFilter keep) throws IOException {
        return store.cleanup(keep);
    }

    @Override
    public void close() throws IOException {
        store.close();
    }
}
