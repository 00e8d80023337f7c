package io.kvstore.cluster.internal.repair;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.StoreHealth;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A store in front of a real one that records every key its scans and ranges yield and every key read
 * by {@link #get}, and that refuses the intervals it is told to as a store refuses the interval of a
 * quarantined table: ranges meeting one and reads inside one fail, writes are taken, and
 * {@link #healInterval} serves them again.
 */
final class WatchedDao implements Dao {
    private final Dao store;
    /** Keys yielded by scans and ranges, one per entry yielded. */
    final ConcurrentLinkedQueue<byte[]> scanned = new ConcurrentLinkedQueue<>();
    /** Keys read one by one. */
    final ConcurrentLinkedQueue<byte[]> read = new ConcurrentLinkedQueue<>();
    private final List<QuarantinedInterval> refused = new ArrayList<>();

    WatchedDao(Dao store) {
        this.store = store;
    }

    /** Refuses {@code [from, to)} from now on, as if a table holding it was found damaged. */
    synchronized void quarantine(byte[] from, byte[] to) {
        refused.add(new QuarantinedInterval(from, to, Path.of("quarantine", "000001.sst"), "test damage", 0));
    }

    /** Forgets what was scanned and read so far. */
    void forget() {
        scanned.clear();
        read.clear();
    }

    @Override
    public synchronized StoreHealth health() {
        return new StoreHealth(List.copyOf(refused), null, null, 0);
    }

    @Override
    public synchronized int healInterval(byte[] from, byte[] to) {
        int before = refused.size();
        refused.removeIf(interval -> interval.within(from, to));
        return before - refused.size();
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        for (QuarantinedInterval interval : health().quarantined()) {
            if (interval.contains(key)) {
                throw new IOException("refused " + interval.describe());
            }
        }
        read.add(key);
        return store.get(key);
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        store.upsert(entry);
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        return watch(from, to, store.range(from, to));
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        return watch(from, to, store.scan(from, to));
    }

    private CloseableIterator<Entry> watch(byte[] from, byte[] to, CloseableIterator<Entry> it) throws IOException {
        for (QuarantinedInterval interval : health().quarantined()) {
            if (interval.overlaps(from, to)) {
                it.close();
                throw new IOException("refused " + interval.describe());
            }
        }
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Entry next() {
                Entry entry = it.next();
                scanned.add(entry.key());
                return entry;
            }

            @Override
            public void close() {
                it.close();
            }
        };
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
