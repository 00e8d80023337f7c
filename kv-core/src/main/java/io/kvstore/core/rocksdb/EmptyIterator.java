package io.kvstore.core.rocksdb;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;

import java.util.NoSuchElementException;

/** The range of an empty interval ({@code from >= to}): nothing to read, nothing to release. */
final class EmptyIterator implements CloseableIterator<Entry> {
    @Override
    public boolean hasNext() {
        return false;
    }

    @Override
    public Entry next() {
        throw new NoSuchElementException();
    }

    @Override
    public void close() {
        // holds no resource
    }
}
