package io.kvstore.cluster.internal.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.StoreHealth;
import io.kvstore.core.testing.Seeds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A repair scan leaves out exactly the keys of the intervals the store refuses, whatever their overlaps and ends. */
class AvailableScanTest {
    /** A store of the keys {@code a} to {@code z} that refuses the intervals it is given. */
    private static final class Store implements Dao {
        final NavigableMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        final List<QuarantinedInterval> refused = new ArrayList<>();

        Store() {
            for (char c = 'a'; c <= 'z'; c++) {
                byte[] key = {(byte) c};
                entries.put(key, Entry.value(key, key, 1));
            }
        }

        @Override
        public StoreHealth health() {
            return new StoreHealth(refused, null, null, 0);
        }

        @Override
        public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
            for (QuarantinedInterval interval : refused) {
                if (interval.overlaps(from, to)) {
                    throw new IOException("refused " + interval.describe());
                }
            }
            List<Entry> within = new ArrayList<>();
            for (Entry entry : entries.values()) {
                if ((from == null || Bytes.compare(entry.key(), from) >= 0)
                        && (to == null || Bytes.compare(entry.key(), to) < 0)) {
                    within.add(entry);
                }
            }
            Iterator<Entry> it = within.iterator();
            return new CloseableIterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public Entry next() {
                    return it.next();
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Entry get(byte[] key) {
            return entries.get(key);
        }

        @Override
        public void upsert(Entry entry) {
            entries.put(entry.key(), entry);
        }

        @Override
        public void flush() {
        }

        @Override
        public void compact() {
        }

        @Override
        public long cleanup(KeyFilter keep) {
            return 0;
        }

        @Override
        public void close() {
        }
    }

    private static byte[] key(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static QuarantinedInterval refuse(String from, String to) {
        return new QuarantinedInterval(key(from), key(to), Path.of("quarantine", "000001.sst"), "test", 0);
    }

    private static String scan(Store store, String from, String to) throws IOException {
        StringBuilder keys = new StringBuilder();
        try (CloseableIterator<Entry> it = AvailableScan.of(store, key(from), key(to))) {
            it.forEachRemaining(e -> keys.append(new String(e.key(), StandardCharsets.UTF_8)));
        }
        return keys.toString();
    }

    @Test
    void theRefusedIntervalsAreLeftOutAndEverythingElseIsScanned() throws IOException {
        Store store = new Store();
        assertEquals("abcdefghijklmnopqrstuvwxyz", scan(store, null, null));
        store.refused.add(refuse("x", null));
        store.refused.add(refuse("c", "f"));
        store.refused.add(refuse("e", "h"));
        store.refused.add(refuse(null, "b"));
        assertEquals("bhijklmnopqrstuvw", scan(store, null, null));
        assertEquals("hij", scan(store, "d", "k"));
        assertEquals("", scan(store, "c", "f"));
        assertEquals("", scan(store, "y", null));
    }

    @Test
    void randomIntervalsLeaveOutExactlyTheirKeys() throws IOException {
        Random random = new Random(Seeds.seed("AvailableScanTest.random"));
        for (int round = 0; round < 200; round++) {
            Store store = new Store();
            int count = random.nextInt(5);
            while (store.refused.size() < count) {
                String low = bound(random);
                String high = bound(random);
                if (low != null && high != null) {
                    if (low.compareTo(high) == 0) {
                        continue;
                    }
                    if (low.compareTo(high) > 0) {
                        String swap = low;
                        low = high;
                        high = swap;
                    }
                }
                store.refused.add(refuse(low, high));
            }
            String from = bound(random);
            String to = bound(random);
            StringBuilder expected = new StringBuilder();
            for (byte[] k : store.entries.keySet()) {
                boolean inRange = (from == null || Bytes.compare(k, key(from)) >= 0)
                        && (to == null || Bytes.compare(k, key(to)) < 0);
                boolean refused = store.refused.stream().anyMatch(r -> r.contains(k));
                if (inRange && !refused) {
                    expected.append((char) k[0]);
                }
            }
            assertEquals(expected.toString(), scan(store, from, to), "refused " + store.refused + ", range ["
                    + from + ", " + to + ")");
        }
    }

    /** A bound between the store's keys, on one, or open (null). */
    private static String bound(Random random) {
        int pick = random.nextInt(30);
        if (pick >= 27) {
            return null;
        }
        String letter = String.valueOf((char) ('a' + Math.min(pick, 25)));
        return pick == 26 ? letter + "m" : letter;
    }
}
