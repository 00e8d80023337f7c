package io.kvstore.cluster.internal.repair;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.StoreHealth;
import io.kvstore.core.testing.ForwardingDao;
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
final class WatchedDao extends ForwardingDao {
    /** Keys yielded by scans and ranges, one per entry yielded. */
    final ConcurrentLinkedQueue<byte[]> scanned = new ConcurrentLinkedQueue<>();
    /** Keys read one by one. */
    final ConcurrentLinkedQueue<byte[]> read = new ConcurrentLinkedQueue<>();
    private final List<QuarantinedInterval> refused = new ArrayList<>();

    WatchedDao(Dao store) {
        super(store);
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
        return super.get(key);
    }

    /** Also every scan's: {@link Dao#scan} is a range here. */
    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        for (QuarantinedInterval interval : health().quarantined()) {
            if (interval.overlaps(from, to)) {
                throw new IOException("refused " + interval.describe());
            }
        }
        CloseableIterator<Entry> it = super.range(from, to);
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
}
