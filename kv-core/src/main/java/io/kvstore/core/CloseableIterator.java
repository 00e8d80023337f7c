package io.kvstore.core;

import java.util.Iterator;

/**
 * A lazy iterator over resources (files, snapshots) that must be released: always close it,
 * preferably with try-with-resources. I/O failures while iterating surface as
 * {@link java.io.UncheckedIOException}.
 */
public interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {
    /** Releases what the iterator holds; idempotent. */
    @Override
    void close();
}
