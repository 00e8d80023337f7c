package io.kvstore.core.rocksdb;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * A lazy range {@code [from, to)} over one RocksDB iterator. The iterator pins an implicit snapshot,
 * so the range stays consistent while writes, flushes and compactions go on. The upper bound is given
 * to RocksDB ({@code iterate_upper_bound}) so it stops reading at {@code to} by itself.
 *
 * <p>Not thread-safe, like any iterator; its methods are nevertheless synchronized so that
 * {@link RocksDbDao#close()} can close it safely while another thread is using it: a native iterator
 * used after its database closed would crash the JVM, this one throws instead.
 */
final class RocksRangeIterator implements CloseableIterator<Entry> {
    private final ReadOptions readOptions;
    private final Slice upperBound;
    private final RocksIterator iterator;
    private final Consumer<RocksRangeIterator> onClose;
    /** Values expired at this instant read as tombstones. */
    private final long nowMillis;
    private boolean closed;

    RocksRangeIterator(RocksDB db, byte[] from, byte[] to, boolean fillCache, long nowMillis,
            Consumer<RocksRangeIterator> onClose) {
        this.onClose = onClose;
        this.nowMillis = nowMillis;
        this.readOptions = new ReadOptions().setFillCache(fillCache);
        this.upperBound = to == null ? null : new Slice(to);
        if (upperBound != null) {
            readOptions.setIterateUpperBound(upperBound);
        }
        this.iterator = db.newIterator(readOptions);
        if (from == null) {
            iterator.seekToFirst();
        } else {
            iterator.seek(from);
        }
    }

    @Override
    public synchronized boolean hasNext() {
        ensureOpen();
        if (iterator.isValid()) {
            return true;
        }
        try {
            iterator.status();
        } catch (RocksDBException e) {
            throw new UncheckedIOException(new IOException("RocksDB range iteration failed", e));
        }
        return false;
    }

    @Override
    public synchronized Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        byte[] key = iterator.key();
        Entry entry = StoredValue.decode(key, iterator.value());
        iterator.next();
        return entry.expires() ? entry.asOf(nowMillis) : entry;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        iterator.close();
        readOptions.close();
        if (upperBound != null) {
            upperBound.close();
        }
        onClose.accept(this);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("Range iterator is closed (by the caller or by closing its RocksDbDao)");
        }
    }
}
