package io.kvstore.core.internal.lsm;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random writes with random (also out-of-order and equal) timestamps, checked against a model that
 * applies the Dao's version rule. Replay a failure with -Dkv.seed=N.
 */
@Tag("slow")
class LsmDaoRandomizedTest {
    @TempDir
    Path dir;

    @Test
    void matchesModelThroughFlushesCompactionsAndReopens() throws IOException {
        long seed = Seeds.seed("LsmDaoRandomizedTest");
        Random random = new Random(seed);
        DaoOptions options = DaoOptions.builder(dir).flushThresholdBytes(2048).blockSizeBytes(256)
                .compactionTrigger(2 + random.nextInt(3)).maxFrozenMemtables(1 + random.nextInt(2)).build();
        NavigableMap<byte[], Entry> model = new TreeMap<>(Bytes.ORDER);
        LsmDao dao = LsmDao.open(options);
        try {
            for (int op = 0; op < 10_000; op++) {
                int kind = random.nextInt(100);
                byte[] key = key(random);
                if (kind < 55) {
                    byte[] value = new byte[random.nextInt(40)];
                    random.nextBytes(value);
                    apply(dao, model, Entry.value(key, value, timestamp(random, model, key, op)));
                } else if (kind < 70) {
                    apply(dao, model, Entry.tombstone(key, op));
                } else if (kind < 90) {
                    Entry expected = model.get(key);
                    Entry actual = dao.get(key);
                    assertSame(expected, actual, "seed " + seed + " op " + op);
                } else if (kind < 97) {
                    byte[] from = random.nextBoolean() ? null : key(random);
                    byte[] to = random.nextBoolean() ? null : key(random);
                    checkRange(dao, model, from, to, "seed " + seed + " op " + op);
                } else if (kind < 98) {
                    dao.close();
                    dao = LsmDao.open(options);
                } else if (kind < 99) {
                    dao.flush();
                } else {
                    dao.compact();
                }
            }
            checkRange(dao, model, null, null, "seed " + seed + " final");
        } finally {
            dao.close();
        }
    }

    /**
     * Mostly the operation number; one write in five is late (an older or equal timestamp), except
     * over a tombstone: a late write older than a tombstone that compaction already dropped
     * reappears, which is the documented price of dropping tombstones.
     */
    private static long timestamp(Random random, NavigableMap<byte[], Entry> model, byte[] key, int op) {
        Entry old = model.get(key);
        if (random.nextInt(5) == 0 && (old == null || !old.isTombstone())) {
            return Math.max(0, op - random.nextInt(50));
        }
        return op;
    }

    private static byte[] key(Random random) {
        int n = random.nextInt(3000);
        byte[] key = new byte[1 + random.nextInt(3)];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (n >>> (8 * i));
        }
        if (random.nextInt(10) == 0) {
            key[0] = (byte) 0xFF;
        }
        return key;
    }

    private static void apply(LsmDao dao, NavigableMap<byte[], Entry> model, Entry entry) throws IOException {
        dao.upsert(entry);
        Entry old = model.get(entry.key());
        if (old == null || Entry.compareVersions(entry, old) >= 0) {
            model.put(entry.key(), entry);
        }
    }

    /** The store may forget a tombstone (after dropping it in compaction): both read as "deleted". */
    private static void assertSame(Entry expected, Entry actual, String context) {
        if (expected == null || expected.isTombstone()) {
            assertTrue(actual == null || actual.isTombstone(), context + ": expected deleted, got " + actual);
            if (actual != null) {
                assertEquals(expected.timestamp(), actual.timestamp(), context);
            }
            return;
        }
        assertEquals(expected.timestamp(), actual == null ? -1 : actual.timestamp(), context + " " + expected);
        assertArrayEquals(expected.value(), actual.value(), context);
    }

    private static void checkRange(LsmDao dao, NavigableMap<byte[], Entry> model, byte[] from, byte[] to,
                                   String context) throws IOException {
        NavigableMap<byte[], Entry> view = model;
        if (from != null && to != null && Bytes.compare(from, to) >= 0) {
            view = new TreeMap<>(Bytes.ORDER);
        } else if (from != null && to != null) {
            view = model.subMap(from, true, to, false);
        } else if (from != null) {
            view = model.tailMap(from, true);
        } else if (to != null) {
            view = model.headMap(to, false);
        }
        Iterator<Map.Entry<byte[], Entry>> expected = view.entrySet().stream()
                .filter(e -> !e.getValue().isTombstone()).iterator();
        try (CloseableIterator<Entry> actual = dao.range(from, to)) {
            while (actual.hasNext()) {
                Entry a = actual.next();
                if (a.isTombstone()) {
                    Entry m = model.get(a.key());
                    assertTrue(m != null && m.isTombstone(), context + ": unexpected tombstone " + a);
                    continue;
                }
                assertTrue(expected.hasNext(), context + ": extra " + a);
                Entry e = expected.next().getValue();
                assertArrayEquals(e.key(), a.key(), context);
                assertEquals(e.timestamp(), a.timestamp(), context);
                assertTrue(Arrays.equals(e.value(), a.value()), context);
            }
        }
        assertFalse(expected.hasNext(), context + ": missing entries");
        assertNull(null);
    }
}
