package io.kvstore.core.internal.lsm;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.Coding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The arena skip list against a model, and under one writer with concurrent readers, in each chunk layout. */
class MemtableTest {

    /**
     * Small chunks only, and large ones (64 KiB here, as if G1's regions were that small) for the first
     * MiB, then small ones: chunks of both kinds in one memtable.
     */
    static Stream<ArenaLayout> layouts() {
        return Stream.of(ArenaLayout.SMALL, new ArenaLayout(64 << 10, 1 << 20));
    }

    @Test
    void emptyMemtableHasNothing() {
        Memtable memtable = new Memtable(7);
        assertTrue(memtable.isEmpty());
        assertEquals(0, memtable.keyCount());
        assertNull(memtable.get(new byte[] {1}));
        try (CloseableIterator<Entry> it = memtable.iterator(null, null, Long.MAX_VALUE)) {
            assertFalse(it.hasNext());
            assertThrows(java.util.NoSuchElementException.class, it::next);
        }
        assertEquals(7, memtable.logNumber());
    }

    @Test
    void olderTimestampLosesAndTiesGoToTheLargerValue() {
        Memtable memtable = new Memtable(1);
        byte[] key = {5};
        memtable.put(Entry.value(key, new byte[] {1}, 10), 1);
        memtable.put(Entry.value(key, new byte[] {2}, 9), 2);
        assertArrayEquals(new byte[] {1}, memtable.get(key).value(), "older timestamp must lose");
        memtable.put(Entry.value(key, new byte[] {3}, 10), 3);
        assertArrayEquals(new byte[] {3}, memtable.get(key).value(), "a tie goes to the larger value");
        memtable.put(Entry.value(key, new byte[] {2}, 10), 4);
        assertArrayEquals(new byte[] {3}, memtable.get(key).value(), "a tie goes to the larger value, not the later write");
        memtable.put(Entry.tombstone(key, 10), 5);
        assertTrue(memtable.get(key).isTombstone(), "a tie goes to the tombstone");
        memtable.put(Entry.value(key, new byte[] {9}, 10), 6);
        assertTrue(memtable.get(key).isTombstone(), "a tie goes to the tombstone, whatever the value");
        memtable.put(Entry.tombstone(key, 11), 7);
        assertTrue(memtable.get(key).isTombstone());
        assertEquals(1, memtable.keyCount());
        assertEquals(9, memtable.minTimestamp());
        assertEquals(11, memtable.maxTimestamp());
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void valuesLargerThanAChunkAndEmptyOnes(ArenaLayout layout) {
        Memtable memtable = new Memtable(1, layout);
        byte[] big = new byte[3 << 20];
        new SplittableRandom(1).nextBytes(big);
        memtable.put(Entry.value(new byte[] {2}, big, 1), 1);
        memtable.put(Entry.value(new byte[] {1}, new byte[0], 1), 2);
        memtable.put(Entry.value(new byte[] {3}, new byte[] {9}, 1), 3);
        assertArrayEquals(big, memtable.get(new byte[] {2}).value());
        assertArrayEquals(new byte[0], memtable.get(new byte[] {1}).value());
        assertArrayEquals(new byte[] {9}, memtable.get(new byte[] {3}).value());
        assertTrue(memtable.sizeBytes() > big.length);
    }

    @Test
    void emptyKeySortsFirst() {
        Memtable memtable = new Memtable(1);
        memtable.put(Entry.value(new byte[] {0}, new byte[] {1}, 1), 1);
        memtable.put(Entry.value(new byte[0], new byte[] {2}, 1), 2);
        try (CloseableIterator<Entry> it = memtable.iterator(null, null, Long.MAX_VALUE)) {
            assertArrayEquals(new byte[0], it.next().key());
            assertArrayEquals(new byte[] {0}, it.next().key());
            assertFalse(it.hasNext());
        }
    }

    /** Random writes against a model of every version; reads at random sequence numbers and bounds. */
    @ParameterizedTest
    @MethodSource("layouts")
    void matchesAModelOfVersions(ArenaLayout layout) {
        long seed = System.nanoTime();
        System.out.println("MemtableTest.matchesAModelOfVersions seed " + seed + ", " + layout);
        SplittableRandom random = new SplittableRandom(seed);
        Memtable memtable = new Memtable(1, layout);
        // key -> (sequence -> visible entry as of that sequence)
        NavigableMap<byte[], TreeMap<Long, Entry>> model = new TreeMap<>(Bytes.ORDER);
        int writes = 20_000;
        for (long sequence = 1; sequence <= writes; sequence++) {
            byte[] key = randomKey(random);
            long timestamp = random.nextInt(1000);
            Entry entry = random.nextInt(8) == 0 ? Entry.tombstone(key, timestamp)
                    : Entry.value(key, randomValue(random), timestamp);
            memtable.put(entry, sequence);
            TreeMap<Long, Entry> versions = model.computeIfAbsent(key, k -> new TreeMap<>());
            Map.Entry<Long, Entry> newest = versions.lastEntry();
            if (newest == null || Entry.compareVersions(entry, newest.getValue()) >= 0) {
                versions.put(sequence, entry);
            }
            if (sequence % 5000 == 0) {
                checkAgainstModel(memtable, model, random, sequence);
            }
        }
        assertEquals(model.size(), memtable.keyCount());
        for (Map.Entry<byte[], TreeMap<Long, Entry>> e : model.entrySet()) {
            assertEntry(e.getValue().lastEntry().getValue(), memtable.get(e.getKey()), seed);
        }
    }

    private static void checkAgainstModel(Memtable memtable, NavigableMap<byte[], TreeMap<Long, Entry>> model,
            SplittableRandom random, long lastSequence) {
        for (int round = 0; round < 20; round++) {
            long sequence = 1 + random.nextLong(lastSequence);
            byte[] from = random.nextInt(3) == 0 ? null : randomKey(random);
            byte[] to = random.nextInt(3) == 0 ? null : randomKey(random);
            List<Entry> expected = new ArrayList<>();
            for (Map.Entry<byte[], TreeMap<Long, Entry>> e : model.entrySet()) {
                if ((from != null && Bytes.compare(e.getKey(), from) < 0) || (to != null && Bytes.compare(e.getKey(), to) >= 0)) {
                    continue;
                }
                Map.Entry<Long, Entry> visible = e.getValue().floorEntry(sequence);
                if (visible != null) {
                    expected.add(visible.getValue());
                }
            }
            List<Entry> actual = new ArrayList<>();
            try (CloseableIterator<Entry> it = memtable.iterator(from, to, sequence)) {
                it.forEachRemaining(actual::add);
            }
            assertEquals(expected, actual, "snapshot at " + sequence + " of [" + Arrays.toString(from) + ", "
                    + Arrays.toString(to) + ")");
        }
    }

    /**
     * One writer overwrites keys with increasing versions while readers get and scan: a reader never
     * sees a torn record, a version older than one it saw before, or keys out of order.
     */
    @ParameterizedTest
    @MethodSource("layouts")
    void readersSeeCompleteRecordsWhileOneWriterInserts(ArenaLayout layout) throws Exception {
        int keys = 5_000;
        long writes = 200_000;
        Memtable memtable = new Memtable(1, layout);
        AtomicLong published = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        CountDownLatch start = new CountDownLatch(1);
        try {
            Future<?> writer = pool.submit(() -> {
                start.await();
                SplittableRandom random = new SplittableRandom(42);
                for (long version = 1; version <= writes; version++) {
                    int k = random.nextInt(keys);
                    memtable.put(Entry.value(key(k), value(k, version, random.nextInt(200)), version), version);
                    published.set(version);
                }
                return null;
            });
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int reader = r;
                readers.add(pool.submit(() -> {
                    start.await();
                    long[] lastSeen = new long[keys];
                    SplittableRandom random = new SplittableRandom(reader);
                    while (published.get() < writes) {
                        if (random.nextInt(50) == 0) {
                            scanInOrder(memtable, published.get());
                        } else {
                            int k = random.nextInt(keys);
                            Entry entry = memtable.get(key(k));
                            if (entry != null) {
                                long version = checkValue(k, entry);
                                assertTrue(version >= lastSeen[k], "version went back for key " + k);
                                lastSeen[k] = version;
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            writer.get(60, TimeUnit.SECONDS);
            for (Future<?> reader : readers) {
                reader.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        scanInOrder(memtable, writes);
    }

    private static void scanInOrder(Memtable memtable, long sequence) {
        int previous = -1;
        try (CloseableIterator<Entry> it = memtable.iterator(null, null, sequence)) {
            while (it.hasNext()) {
                Entry entry = it.next();
                int index = Integer.reverseBytes(Coding.getInt(entry.key(), 0));
                assertTrue(index > previous, "keys out of order: " + index + " after " + previous);
                previous = index;
                assertTrue(checkValue(index, entry) <= sequence, "a version newer than the snapshot");
            }
        }
    }

    /** Value: key index, version, then a run of filler bytes derived from both; returns the version. */
    private static byte[] value(int k, long version, int filler) {
        byte[] value = new byte[12 + filler];
        Coding.putInt(value, 0, k);
        Coding.putLong(value, 4, version);
        for (int i = 12; i < value.length; i++) {
            value[i] = (byte) (k + version + i);
        }
        return value;
    }

    private static long checkValue(int k, Entry entry) {
        byte[] value = entry.value();
        assertEquals(k, Coding.getInt(value, 0), "value of another key");
        long version = Coding.getLong(value, 4);
        assertEquals(version, entry.timestamp(), "timestamp and value from different versions");
        for (int i = 12; i < value.length; i++) {
            assertEquals((byte) (k + version + i), value[i], "torn value");
        }
        return version;
    }

    private static byte[] key(int k) {
        byte[] key = new byte[4];
        Coding.putInt(key, 0, Integer.reverseBytes(k)); // big-endian: key order is numeric order
        return key;
    }

    private static byte[] randomKey(SplittableRandom random) {
        byte[] key = new byte[random.nextInt(4)];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (random.nextInt(4) * 85); // 0, 85, 170, 255: few keys, many overwrites, signed and unsigned bytes
        }
        return key;
    }

    private static byte[] randomValue(SplittableRandom random) {
        byte[] value = new byte[random.nextInt(400) == 0 ? 300_000 + random.nextInt(1000) : random.nextInt(64)];
        random.nextBytes(value);
        return value;
    }

    private static void assertEntry(Entry expected, Entry actual, long seed) {
        assertEquals(expected, actual, "seed " + seed);
    }
}
