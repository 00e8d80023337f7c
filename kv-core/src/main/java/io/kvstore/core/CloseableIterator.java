package io.kvstore.core;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A lazy iterator over resources (files, snapshots) that must be released: always close it,
 * preferably with try-with-resources. I/O failures while iterating surface as
 * {@link java.io.UncheckedIOException}.
 */
public interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {
    /** Releases what the iterator holds; idempotent. */
    @Override
    void close();

    /** An iterator over nothing that holds nothing: the range of an empty interval, or of a store that keeps nothing. */
    static <T> CloseableIterator<T> empty() {
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return false;
            }

            @Override
            public T next() {
                throw new NoSuchElementException();
            }

            @Override
            public void close() {
                // holds no resource
            }
        };
    }
}
