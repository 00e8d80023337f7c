package io.kvstore.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.InMemoryDao;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.testing.ForwardingDao;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HintStoreTest {
    private static final String NODE = "http://b:2";

    /** A store that counts the entries its ranges hand out, tombstones included. */
    private static final class CountingDao extends ForwardingDao {
        final AtomicLong read = new AtomicLong();

        CountingDao() {
            super(new InMemoryDao());
        }

        @Override
        public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
            CloseableIterator<Entry> range = super.range(from, to);
            return new CloseableIterator<>() {
                @Override
                public boolean hasNext() {
                    return range.hasNext();
                }

                @Override
                public Entry next() {
                    read.incrementAndGet();
                    return range.next();
                }

                @Override
                public void close() {
                    range.close();
                }
            };
        }
    }

    private static Entry write(int i, long timestamp) {
        return Entry.value(("key" + i).getBytes(StandardCharsets.UTF_8), ("value" + i).getBytes(StandardCharsets.UTF_8), timestamp);
    }

    /**
     * Delivering hints one batch at a time reads each delivered hint's tombstone about once, not once
     * per later replay: replays do not slow down as delivered hints pile up ahead of the waiting ones.
     */
    @Test
    void replayingReadsPastTheDeliveredHintsOnlyOnce() throws IOException {
        CountingDao dao = new CountingDao();
        HintStore store = new HintStore(dao, new HybridClock());
        int hints = 5000;
        for (int i = 0; i < hints; i++) {
            store.append(NODE, write(i, 1000L + i));
        }
        dao.read.set(0);
        int delivered = 0;
        while (true) {
            List<Hint> batch = store.oldest(NODE, Long.MAX_VALUE, 10);
            if (batch.isEmpty()) {
                break;
            }
            for (Hint hint : batch) {
                store.remove(hint);
            }
            delivered += batch.size();
        }
        assertEquals(hints, delivered);
        assertEquals(0, store.pendingCount(NODE));
        assertTrue(dao.read.get() < 3L * hints, "entries read to deliver " + hints + " hints in batches of 10: "
                + dao.read.get() + " (reading from the first hint each time reads about " + hints * (long) hints / 20 + ")");
    }

    /** A hint appended behind the replay's start (an older write's) is still found, and in order. */
    @Test
    void aHintForAnOlderWriteAppendedAfterDeliveriesIsStillReplayed() throws IOException {
        HintStore store = new HintStore(new InMemoryDao(), new HybridClock());
        for (int i = 0; i < 100; i++) {
            store.append(NODE, write(i, 5000L + i));
        }
        for (Hint hint : store.oldest(NODE, Long.MAX_VALUE, 60)) {
            store.remove(hint);
        }
        assertEquals(40, store.pendingCount(NODE));
        store.oldest(NODE, Long.MAX_VALUE, 1);
        store.append(NODE, write(1000, 10));
        List<Hint> next = store.oldest(NODE, Long.MAX_VALUE, 1000);
        List<String> keys = new ArrayList<>();
        for (Hint hint : next) {
            keys.add(new String(hint.entry.key(), StandardCharsets.UTF_8));
        }
        assertEquals(41, keys.size(), keys.toString());
        assertEquals("key1000", keys.get(0), "the older write's hint comes first");
        assertEquals("key60", keys.get(1));
    }
}
