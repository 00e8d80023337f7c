package io.kvstore.bench.ycsb;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import io.kvstore.core.KvStore;
import java.io.Closeable;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The plain map of bytes the YCSB binding drives: our {@link KvStore}, or a peer store's {@link Dao}
 * written with timestamps of a clock of this process, so that every engine runs the same binding code.
 */
interface PlainStore extends Closeable {
    byte[] get(byte[] key) throws IOException;

    void put(byte[] key, byte[] value) throws IOException;

    void delete(byte[] key) throws IOException;

    /** The present keys of {@code [from, to)} with their values; must be closed. */
    CloseableIterator<Map.Entry<byte[], byte[]>> range(byte[] from, byte[] to) throws IOException;

    DaoProperties properties();

    static PlainStore of(KvStore store) {
        return new PlainStore() {
            @Override
            public byte[] get(byte[] key) throws IOException {
                return store.get(key);
            }

            @Override
            public void put(byte[] key, byte[] value) throws IOException {
                store.put(key, value);
            }

            @Override
            public void delete(byte[] key) throws IOException {
                store.delete(key);
            }

            @Override
            public CloseableIterator<Map.Entry<byte[], byte[]>> range(byte[] from, byte[] to) throws IOException {
                return store.range(from, to);
            }

            @Override
            public DaoProperties properties() {
                return store.properties();
            }

            @Override
            public void close() throws IOException {
                store.close();
            }
        };
    }

    /**
     * {@code dao} as a plain map; its timestamps are microseconds of the wall clock, kept increasing
     * within this process (a benchmark store is written by one process at a time).
     */
    static PlainStore of(Dao dao) {
        AtomicLong last = new AtomicLong();
        return new PlainStore() {
            private long next() {
                long now = System.currentTimeMillis() * 1000;
                return last.updateAndGet(previous -> Math.max(previous + 1, now));
            }

            @Override
            public byte[] get(byte[] key) throws IOException {
                Entry entry = dao.get(key);
                return entry == null ? null : entry.value();
            }

            @Override
            public void put(byte[] key, byte[] value) throws IOException {
                dao.upsert(Entry.value(key, value, next()));
            }

            @Override
            public void delete(byte[] key) throws IOException {
                dao.upsert(Entry.tombstone(key, next()));
            }

            @Override
            public CloseableIterator<Map.Entry<byte[], byte[]>> range(byte[] from, byte[] to) throws IOException {
                return present(dao.range(from, to));
            }

            @Override
            public DaoProperties properties() {
                return dao.properties();
            }

            @Override
            public void close() throws IOException {
                dao.close();
            }
        };
    }

    /** The values of {@code versions}, tombstones skipped. */
    private static CloseableIterator<Map.Entry<byte[], byte[]>> present(CloseableIterator<Entry> versions) {
        return new CloseableIterator<>() {
            private Entry next;

            @Override
            public boolean hasNext() {
                while (next == null && versions.hasNext()) {
                    Entry entry = versions.next();
                    next = entry.isTombstone() ? null : entry;
                }
                return next != null;
            }

            @Override
            public Map.Entry<byte[], byte[]> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Map.Entry<byte[], byte[]> entry = new AbstractMap.SimpleImmutableEntry<>(next.key(), next.value());
                next = null;
                return entry;
            }

            @Override
            public void close() {
                versions.close();
            }
        };
    }
}
