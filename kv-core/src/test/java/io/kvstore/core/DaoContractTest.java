package io.kvstore.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@link Dao} contract; every engine runs it through a subclass that says how to open one. */
public abstract class DaoContractTest {
    @TempDir
    protected Path dir;
    protected Dao dao;

    /** Opens the engine under test with these options. */
    protected abstract Dao open(DaoOptions options) throws IOException;

    /** Small memtables, so tests cross memtable/table boundaries quickly. */
    protected DaoOptions options() {
        return DaoOptions.builder(dir).flushThresholdBytes(64 << 10).build();
    }

    @BeforeEach
    void openStore() throws IOException {
        dao = open(options());
    }

    @AfterEach
    void closeStore() throws IOException {
        if (dao != null) {
            dao.close();
        }
    }

    protected void reopen() throws IOException {
        dao.close();
        dao = open(options());
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    protected static Entry value(String key, String value, long ts) {
        return Entry.value(bytes(key), bytes(value), ts);
    }

    protected List<Entry> all(byte[] from, byte[] to) throws IOException {
        List<Entry> out = new ArrayList<>();
        try (CloseableIterator<Entry> it = dao.range(from, to)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    @Test
    void getOfAnUnknownKeyIsNull() throws IOException {
        assertNull(dao.get(bytes("missing")));
    }

    @Test
    void putThenGetReturnsValueAndTimestamp() throws IOException {
        dao.upsert(value("k", "v", 10));
        Entry e = dao.get(bytes("k"));
        assertArrayEquals(bytes("v"), e.value());
        assertEquals(10, e.timestamp());
    }

    @Test
    void overwriteWithANewerTimestampWins() throws IOException {
        dao.upsert(value("k", "v1", 10));
        dao.upsert(value("k", "v2", 11));
        assertArrayEquals(bytes("v2"), dao.get(bytes("k")).value());
    }

    @Test
    void anOlderWriteArrivingLateIsIgnoredEvenAcrossAFlush() throws IOException {
        dao.upsert(value("k", "new", 20));
        dao.flush();
        dao.upsert(value("k", "old", 10));
        assertArrayEquals(bytes("new"), dao.get(bytes("k")).value());
        assertArrayEquals(bytes("new"), all(null, null).get(0).value());
        dao.flush();
        dao.compact();
        assertArrayEquals(bytes("new"), dao.get(bytes("k")).value());
    }

    @Test
    void equalTimestampsLetTheLaterWriteWin() throws IOException {
        dao.upsert(value("k", "first", 10));
        dao.upsert(value("k", "second", 10));
        assertArrayEquals(bytes("second"), dao.get(bytes("k")).value());
        dao.flush();
        dao.upsert(value("k", "third", 10));
        assertArrayEquals(bytes("third"), dao.get(bytes("k")).value());
    }

    @Test
    void deleteLeavesATombstoneAndRePutRevives() throws IOException {
        dao.upsert(value("k", "v", 1));
        dao.upsert(Entry.tombstone(bytes("k"), 2));
        Entry e = dao.get(bytes("k"));
        assertTrue(e == null || e.isTombstone(), "deleted key must read as a tombstone or nothing");
        dao.upsert(value("k", "again", 3));
        assertArrayEquals(bytes("again"), dao.get(bytes("k")).value());
    }

    @Test
    void tombstonesAreVisibleToRangeReadersBeforeCompaction() throws IOException {
        dao.upsert(value("a", "1", 1));
        dao.upsert(Entry.tombstone(bytes("b"), 2));
        List<Entry> entries = all(null, null);
        assertEquals(2, entries.size());
        assertTrue(entries.get(1).isTombstone());
        assertEquals(2, entries.get(1).timestamp());
    }

    @Test
    void emptyValueIsAValueNotATombstone() throws IOException {
        dao.upsert(Entry.value(bytes("k"), new byte[0], 1));
        dao.flush();
        Entry e = dao.get(bytes("k"));
        assertNotNull(e);
        assertFalse(e.isTombstone());
        assertEquals(0, e.value().length);
        reopen();
        assertEquals(0, dao.get(bytes("k")).value().length);
    }

    @Test
    void binaryKeysWithZeroAndFfBytesSortAsUnsigned() throws IOException {
        byte[][] keys = {{0x00}, {0x00, 0x00}, {0x01}, {0x7F}, {(byte) 0x80}, {(byte) 0xFF}, {(byte) 0xFF, 0x00}};
        for (int i = keys.length - 1; i >= 0; i--) {
            dao.upsert(Entry.value(keys[i], new byte[] {(byte) i}, 1));
        }
        dao.flush();
        dao.upsert(Entry.value(new byte[] {(byte) 0x90}, new byte[] {9}, 1)); // one more, in the memtable
        List<Entry> entries = all(null, null);
        assertEquals(keys.length + 1, entries.size());
        for (int i = 1; i < entries.size(); i++) {
            assertTrue(Bytes.compare(entries.get(i - 1).key(), entries.get(i).key()) < 0, "unsigned order at " + i);
        }
        for (int i = 0; i < keys.length; i++) {
            assertArrayEquals(new byte[] {(byte) i}, dao.get(keys[i]).value());
        }
    }

    @Test
    void fourMebibyteValuesRoundTrip() throws IOException {
        byte[] big = new byte[4 << 20];
        new Random(1).nextBytes(big);
        dao.upsert(Entry.value(bytes("big"), big, 1));
        assertArrayEquals(big, dao.get(bytes("big")).value());
        dao.flush();
        assertArrayEquals(big, dao.get(bytes("big")).value());
        reopen();
        assertArrayEquals(big, dao.get(bytes("big")).value());
    }

    @Test
    void rangeBoundsAreInclusiveStartExclusiveEndAndMayBeOpen() throws IOException {
        for (char c = 'a'; c <= 'e'; c++) {
            dao.upsert(value(String.valueOf(c), "v" + c, 1));
        }
        assertEquals(List.of("b", "c"), keys(all(bytes("b"), bytes("d"))));
        assertEquals(List.of("a", "b"), keys(all(null, bytes("c"))));
        assertEquals(List.of("d", "e"), keys(all(bytes("d"), null)));
        assertEquals(List.of("a", "b", "c", "d", "e"), keys(all(null, null)));
        assertEquals(List.of("c"), keys(all(bytes("bb"), bytes("cc"))));
        assertEquals(List.of(), keys(all(bytes("c"), bytes("c"))), "empty range");
        assertEquals(List.of(), keys(all(bytes("d"), bytes("b"))), "from after to");
        assertEquals(List.of(), keys(all(bytes("f"), null)), "past the last key");
    }

    @Test
    void rangeSpansMemtableAndTables() throws IOException {
        for (int i = 0; i < 3000; i++) {
            dao.upsert(value(String.format("key%05d", i), "v" + i, i));
            if (i % 1000 == 999) {
                dao.flush();
            }
        }
        List<Entry> entries = all(bytes("key00500"), bytes("key02500"));
        assertEquals(2000, entries.size());
        assertEquals("key00500", new String(entries.get(0).key(), StandardCharsets.UTF_8));
        assertEquals("key02499", new String(entries.get(1999).key(), StandardCharsets.UTF_8));
    }

    @Test
    void reopenKeepsEverything() throws IOException {
        for (int i = 0; i < 5000; i++) {
            dao.upsert(value("key" + i, "value" + i, i + 1));
        }
        dao.upsert(Entry.tombstone(bytes("key7"), 100_000));
        reopen();
        for (int i = 0; i < 5000; i++) {
            Entry e = dao.get(bytes("key" + i));
            if (i == 7) {
                assertTrue(e == null || e.isTombstone());
            } else {
                assertArrayEquals(bytes("value" + i), e.value(), "key" + i);
                assertEquals(i + 1, e.timestamp());
            }
        }
    }

    @Test
    void aSecondOpenOfTheSameDirectoryFailsClearly() {
        IOException e = assertThrows(IOException.class, () -> open(options()).close());
        assertTrue(e.getMessage().contains("already open"), e.getMessage());
    }

    @Test
    void closeIsIdempotentAndUseAfterCloseFails() throws IOException {
        dao.upsert(value("k", "v", 1));
        dao.close();
        dao.close();
        assertThrows(IllegalStateException.class, () -> dao.upsert(value("k", "v", 2)));
        dao = null;
    }

    @Test
    void concurrentWritersAndReadersSeeConsistentData() throws Exception {
        int writers = 4;
        int perWriter = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                futures.add(pool.submit((Callable<Void>) () -> {
                    start.await();
                    for (int i = 0; i < perWriter; i++) {
                        dao.upsert(value("w" + writer + "-" + i, "v" + i, i + 1));
                    }
                    return null;
                }));
            }
            for (int r = 0; r < 2; r++) {
                futures.add(pool.submit((Callable<Void>) () -> {
                    start.await();
                    for (int i = 0; i < perWriter; i++) {
                        Entry e = dao.get(bytes("w0-" + i));
                        if (e != null) {
                            assertArrayEquals(bytes("v" + i), e.value());
                        }
                        if (i % 500 == 0) {
                            List<Entry> seen = all(bytes("w1-"), bytes("w1-~"));
                            for (int j = 1; j < seen.size(); j++) {
                                assertTrue(Bytes.compare(seen.get(j - 1).key(), seen.get(j).key()) < 0);
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(writers * perWriter, all(null, null).size());
    }

    @Test
    void rangeIteratorsStayCorrectWhileFlushAndCompactionRun() throws Exception {
        for (int i = 0; i < 2000; i++) {
            dao.upsert(value(String.format("k%05d", i), "v" + i, 1));
        }
        dao.flush();
        try (CloseableIterator<Entry> it = dao.range(null, null)) {
            int seen = 0;
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<?> churn = pool.submit((Callable<Void>) () -> {
                    for (int round = 0; round < 5; round++) {
                        for (int i = 0; i < 2000; i++) {
                            dao.upsert(value(String.format("k%05d", i), "round" + round, 2 + round));
                        }
                        dao.flush();
                    }
                    dao.compact();
                    return null;
                });
                while (it.hasNext()) {
                    Entry e = it.next();
                    assertEquals(String.format("k%05d", seen), new String(e.key(), StandardCharsets.UTF_8));
                    seen++;
                    if (seen == 1000) {
                        churn.get(2, TimeUnit.MINUTES); // finish all flushes and a full compaction mid-iteration
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(2000, seen);
        }
        assertArrayEquals(bytes("round4"), dao.get(bytes("k01999")).value());
    }

    private static List<String> keys(List<Entry> entries) {
        List<String> keys = new ArrayList<>();
        for (Entry e : entries) {
            keys.add(new String(e.key(), StandardCharsets.UTF_8));
        }
        return keys;
    }
}
