package io.kvstore.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every {@link Dao} must show. An engine's test extends this class and implements
 * {@link #open(DaoOptions)}; every test runs on real files in a fresh temporary directory.
 */
public abstract class DaoContractTest {
    @TempDir
    protected Path directory;

    private final List<Dao> opened = new ArrayList<>();

    /** Opens the engine under test with {@code options}. */
    protected abstract Dao open(DaoOptions options) throws IOException;

    @AfterEach
    void closeEverythingOpened() throws IOException {
        for (Dao dao : opened) {
            dao.close();
        }
    }

    // ---- single-key operations ----

    @Test
    void propertiesCountAFlushedTable() throws IOException {
        Dao dao = openDefault();
        // Random values: a compressing engine may not shrink them below their size.
        Random random = new Random(100);
        for (int i = 0; i < 100; i++) {
            byte[] value = new byte[100];
            random.nextBytes(value);
            dao.upsert(Entry.value(("key" + i).getBytes(StandardCharsets.UTF_8), value, i + 1));
        }
        dao.flush();
        DaoProperties flushed = dao.properties();
        assertEquals(1, flushed.tableCount(), "one flush, one table: " + flushed);
        assertTrue(flushed.tableBytes() >= 100 * 100, "the table holds the values: " + flushed);
        assertEquals(0, flushed.frozenMemtables());
        assertEquals(1, flushed.flushes(), "the flush is counted: " + flushed);
        assertTrue(flushed.flushedBytes() >= 100 * 100, "with the bytes it wrote: " + flushed);
    }

    @Test
    void getOfUnknownKeyIsNull() throws IOException {
        Dao dao = openDefault();
        assertNull(dao.get(key("missing")));
    }

    @Test
    void upsertThenGetReturnsValueAndTimestamp() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("1"), 10));
        assertEquals(Entry.value(key("a"), value("1"), 10), dao.get(key("a")));
        assertNull(dao.get(key("b")));
    }

    @Test
    void newerWriteOverwrites() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("old"), 1));
        dao.upsert(Entry.value(key("a"), value("new"), 2));
        assertEquals(Entry.value(key("a"), value("new"), 2), dao.get(key("a")));
    }

    @Test
    void deleteLeavesTombstoneWithItsTimestamp() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("1"), 1));
        dao.upsert(Entry.tombstone(key("a"), 2));
        Entry got = dao.get(key("a"));
        assertNotNull(got, "a tombstone must stay visible until compaction");
        assertTrue(got.isTombstone());
        assertEquals(2, got.timestamp());
    }

    @Test
    void deleteThenPutAgainRevivesKey() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("1"), 1));
        dao.upsert(Entry.tombstone(key("a"), 2));
        dao.upsert(Entry.value(key("a"), value("2"), 3));
        assertEquals(Entry.value(key("a"), value("2"), 3), dao.get(key("a")));
        dao.flush();
        assertEquals(Entry.value(key("a"), value("2"), 3), dao.get(key("a")));
    }

    @Test
    void emptyValueIsPresentAndDistinctFromTombstone() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("empty"), new byte[0], 1));
        dao.upsert(Entry.tombstone(key("gone"), 1));
        assertEmptyValue(dao.get(key("empty")));
        assertTrue(dao.get(key("gone")).isTombstone());
        dao.flush();
        assertEmptyValue(dao.get(key("empty")));
        reopen(dao);
        assertEmptyValue(reopened().get(key("empty")));
    }

    private static void assertEmptyValue(Entry entry) {
        assertNotNull(entry);
        assertFalse(entry.isTombstone(), "an empty value is not a tombstone");
        assertEquals(0, entry.value().length);
    }

    @Test
    void binaryKeysWithZeroAndFfBytesAreDistinct() throws IOException {
        Dao dao = openDefault();
        byte[][] keys = {
                {0x00}, {0x00, 0x00}, {(byte) 0xFF}, {(byte) 0xFF, (byte) 0xFF}, {0x00, (byte) 0xFF},
                {(byte) 0xFF, 0x00}, {'a', 0x00, 'b'}, {'a', (byte) 0xFF, 'b'}, {'a'},
        };
        for (int i = 0; i < keys.length; i++) {
            dao.upsert(Entry.value(keys[i], new byte[] {(byte) i, 0x00, (byte) 0xFF}, i + 1));
        }
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < keys.length; i++) {
                Entry got = dao.get(keys[i]);
                assertNotNull(got, "key " + Bytes.toDebugString(keys[i]));
                assertArrayEquals(new byte[] {(byte) i, 0x00, (byte) 0xFF}, got.value());
            }
            assertEquals(keys.length, toList(dao.range(null, null)).size());
            dao.flush();
        }
    }

    @Test
    void keysOrderAsUnsignedBytes() throws IOException {
        Dao dao = openDefault();
        byte[][] sorted = {
                {0x00}, {0x00, 0x00}, {0x01}, {0x7F}, {0x7F, (byte) 0xFF}, {(byte) 0x80}, {(byte) 0x80, 0x00},
                {(byte) 0xFE}, {(byte) 0xFF}, {(byte) 0xFF, 0x00}, {(byte) 0xFF, (byte) 0xFF},
        };
        List<byte[]> shuffled = new ArrayList<>(Arrays.asList(sorted));
        java.util.Collections.shuffle(shuffled, new Random(7));
        for (byte[] k : shuffled) {
            dao.upsert(Entry.value(k, value("v"), 1));
        }
        assertKeys(sorted, toList(dao.range(null, null)));
        dao.flush();
        assertKeys(sorted, toList(dao.range(null, null)));
        assertKeys(Arrays.copyOfRange(sorted, 5, 8), toList(dao.range(new byte[] {(byte) 0x80}, new byte[] {(byte) 0xFF})));
    }

    @Test
    void fourMebibyteValuesRoundTrip() throws IOException {
        Dao dao = openDefault();
        Random random = new Random(42);
        byte[][] values = new byte[3][];
        for (int i = 0; i < values.length; i++) {
            values[i] = new byte[4 << 20];
            random.nextBytes(values[i]);
            dao.upsert(Entry.value(key("big" + i), values[i], 1));
        }
        for (int i = 0; i < values.length; i++) {
            assertArrayEquals(values[i], dao.get(key("big" + i)).value());
        }
        dao.flush();
        reopen(dao);
        Dao again = reopened();
        for (int i = 0; i < values.length; i++) {
            assertArrayEquals(values[i], again.get(key("big" + i)).value());
        }
        List<Entry> all = toList(again.range(null, null));
        assertEquals(3, all.size());
        assertArrayEquals(values[1], all.get(1).value());
    }

    // ---- ranges ----

    @Test
    void rangeStartIsInclusiveAndEndExclusive() throws IOException {
        Dao dao = daoWithKeys("a", "b", "c", "d", "e");
        assertKeyNames(List.of("b", "c"), dao.range(key("b"), key("d")));
        assertKeyNames(List.of("b", "c", "d"), dao.range(key("aa"), key("dd")));
    }

    @Test
    void rangeWithOpenEnds() throws IOException {
        Dao dao = daoWithKeys("a", "b", "c", "d", "e");
        assertKeyNames(List.of("a", "b", "c"), dao.range(null, key("d")));
        assertKeyNames(List.of("c", "d", "e"), dao.range(key("c"), null));
        assertKeyNames(List.of("a", "b", "c", "d", "e"), dao.range(null, null));
    }

    @Test
    void emptyRanges() throws IOException {
        Dao dao = daoWithKeys("a", "b", "d");
        assertKeyNames(List.of(), dao.range(key("c"), key("d")));
        assertKeyNames(List.of(), dao.range(key("e"), null));
        assertKeyNames(List.of(), dao.range(null, key("a")));
        assertKeyNames(List.of(), dao.range(key("b"), key("b")));
        assertKeyNames(List.of(), dao.range(key("d"), key("a")));
        assertKeyNames(List.of(), openOther().range(null, null));
    }

    @Test
    void rangeShowsTombstonesAndLatestVersions() throws IOException {
        Dao dao = daoWithKeys("a", "b", "c");
        dao.upsert(Entry.tombstone(key("b"), 5));
        dao.upsert(Entry.value(key("c"), value("c2"), 5));
        List<Entry> entries = toList(dao.range(null, null));
        assertEquals(3, entries.size());
        assertTrue(entries.get(1).isTombstone());
        assertEquals(5, entries.get(1).timestamp());
        assertEquals(Entry.value(key("c"), value("c2"), 5), entries.get(2));
    }

    @Test
    void rangeMergesMemtableAndTables() throws IOException {
        Dao dao = openDefault();
        for (int i = 0; i < 30; i++) {
            dao.upsert(Entry.value(key(String.format("k%03d", i)), value("v" + i), 1));
            if (i % 7 == 6) {
                dao.flush();
            }
        }
        dao.upsert(Entry.value(key("k005"), value("newer"), 2));
        List<Entry> entries = toList(dao.range(key("k003"), key("k010")));
        assertEquals(7, entries.size());
        assertEquals(Entry.value(key("k005"), value("newer"), 2), entries.get(2));
    }

    @Test
    void aScanReturnsWhatTheRangeReturns() throws IOException {
        Dao dao = openDefault();
        for (int i = 0; i < 300; i++) {
            dao.upsert(Entry.value(key(String.format("k%03d", i)), value("v" + i), 1));
            if (i % 100 == 99) {
                dao.flush();
            }
        }
        for (int i = 0; i < 300; i += 7) {
            dao.upsert(i % 2 == 0 ? Entry.tombstone(key(String.format("k%03d", i)), 2)
                    : Entry.value(key(String.format("k%03d", i)), value("newer" + i), 2));
        }
        String[][] bounds = {{null, null}, {"k050", "k250"}, {"k100", null}, {null, "k017"}, {"k200", "k100"}, {"z", null}};
        for (String[] b : bounds) {
            byte[] from = b[0] == null ? null : key(b[0]);
            byte[] to = b[1] == null ? null : key(b[1]);
            assertEquals(toList(dao.range(from, to)), toList(dao.scan(from, to)), Arrays.toString(b));
        }
        assertEquals(300, toList(dao.scan(null, null)).size());
    }

    @Test
    void closingIteratorEarlyAndTwiceIsAllowed() throws IOException {
        Dao dao = daoWithKeys("a", "b", "c");
        CloseableIterator<Entry> iterator = dao.range(null, null);
        assertTrue(iterator.hasNext());
        iterator.next();
        iterator.close();
        iterator.close();
    }

    // ---- timestamps ----

    @Test
    void olderWriteAfterNewerOneIsIgnored() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("new"), 20));
        dao.upsert(Entry.value(key("a"), value("old"), 10));
        dao.upsert(Entry.tombstone(key("a"), 15));
        assertEquals(Entry.value(key("a"), value("new"), 20), dao.get(key("a")));

        dao.upsert(Entry.tombstone(key("b"), 20));
        dao.upsert(Entry.value(key("b"), value("old"), 10));
        assertTrue(dao.get(key("b")).isTombstone());
        assertEquals(20, dao.get(key("b")).timestamp());
    }

    @Test
    void olderWriteIsIgnoredWhenNewerOneIsAlreadyInATable() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("new"), 20));
        dao.flush();
        dao.upsert(Entry.value(key("a"), value("old"), 10));
        assertEquals(Entry.value(key("a"), value("new"), 20), dao.get(key("a")));
        assertEquals(List.of(Entry.value(key("a"), value("new"), 20)), toList(dao.range(null, null)));
        dao.flush();
        dao.compact();
        assertEquals(Entry.value(key("a"), value("new"), 20), dao.get(key("a")));
        reopen(dao);
        assertEquals(Entry.value(key("a"), value("new"), 20), reopened().get(key("a")));
    }

    @Test
    void equalTimestampsGoToTheTombstoneThenTheLargerValueWhateverTheOrder() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("second"), 7));
        dao.upsert(Entry.value(key("a"), value("first"), 7));
        assertEquals(Entry.value(key("a"), value("second"), 7), dao.get(key("a")), "the larger value, not the later write");
        dao.flush();
        dao.upsert(Entry.value(key("a"), value("third"), 7));
        assertEquals(Entry.value(key("a"), value("third"), 7), dao.get(key("a")), "larger than a value in a table");
        dao.upsert(Entry.tombstone(key("a"), 7));
        assertTrue(dao.get(key("a")).isTombstone());
        dao.flush();
        dao.upsert(Entry.value(key("a"), value("zzz"), 7));
        assertTrue(dao.get(key("a")).isTombstone(), "a tombstone wins over any value of its timestamp");
        assertEquals(List.of(Entry.tombstone(key("a"), 7)), toList(dao.range(null, null)));

        dao.upsert(Entry.value(key("b"), value("ab"), 3));
        dao.flush();
        dao.upsert(Entry.value(key("b"), value("a"), 3));
        dao.upsert(Entry.value(key("b"), new byte[0], 3));
        dao.upsert(Entry.value(key("c"), new byte[] {(byte) 0x80}, 3));
        dao.flush();
        dao.upsert(Entry.value(key("c"), new byte[] {0x7F}, 3));
        dao.compact();
        assertEquals(Entry.value(key("b"), value("ab"), 3), dao.get(key("b")), "a value wins over its prefix");
        assertEquals(Entry.value(key("c"), new byte[] {(byte) 0x80}, 3), dao.get(key("c")), "bytes compare unsigned");
        reopen(dao);
        assertEquals(Entry.value(key("b"), value("ab"), 3), reopened().get(key("b")));
        assertEquals(Entry.value(key("c"), new byte[] {(byte) 0x80}, 3), reopened().get(key("c")));
    }

    // ---- expiry ----

    /** Hybrid-clock timestamps at wall time {@code millis}, as replicas write them. */
    private static long hybrid(long millis) {
        return millis << 16;
    }

    @Test
    void anExpiredValueReadsAsATombstoneOfItsTimestampThroughFlushCompactionAndReopen() throws IOException {
        long start = 1_700_000_000_000L;
        AtomicLong clock = new AtomicLong(start);
        DaoOptions options = DaoOptions.builder(directory).clock(clock::get).build();
        Dao dao = track(open(options));
        long written = hybrid(start);
        dao.upsert(Entry.value(key("a"), value("short-lived"), written, start + 1000));
        dao.upsert(Entry.value(key("b"), value("long-lived"), written, start + 1_000_000));
        dao.upsert(Entry.value(key("c"), value("forever"), written));
        clock.set(start + 999);
        assertEquals(Entry.value(key("a"), value("short-lived"), written, start + 1000), dao.get(key("a")));
        clock.set(start + 1000);
        assertEquals(Entry.tombstone(key("a"), written), dao.get(key("a")), "expired at its expiry");
        assertEquals(List.of(Entry.tombstone(key("a"), written),
                Entry.value(key("b"), value("long-lived"), written, start + 1_000_000),
                Entry.value(key("c"), value("forever"), written)), toList(dao.range(null, null)));

        dao.upsert(Entry.value(key("a"), value("an older replica's"), written - 1));
        assertEquals(Entry.tombstone(key("a"), written), dao.get(key("a")), "not resurrected by an older write");
        dao.flush();
        dao.compact();
        dao.upsert(Entry.value(key("a"), value("an older replica's"), written - 1));
        assertEquals(Entry.tombstone(key("a"), written), dao.get(key("a")), "nor after a compaction");
        dao.close();

        dao = track(open(options));
        assertEquals(Entry.tombstone(key("a"), written), dao.get(key("a")), "a restart changes nothing");
        assertEquals(Entry.value(key("b"), value("long-lived"), written, start + 1_000_000), dao.get(key("b")));
        clock.set(start + 1_000_000);
        assertEquals(Entry.tombstone(key("b"), written), dao.get(key("b")));
        assertEquals(Entry.value(key("c"), value("forever"), written), dao.get(key("c")));

        dao.upsert(Entry.value(key("a"), value("rewritten"), written + 1));
        assertEquals(Entry.value(key("a"), value("rewritten"), written + 1), dao.get(key("a")),
                "a newer write without expiry replaces it");
    }

    @Test
    void anExpiredValueInTheLogReadsAsExpiredAfterAReopen() throws IOException {
        long start = 1_700_000_000_000L;
        AtomicLong clock = new AtomicLong(start);
        DaoOptions options = DaoOptions.builder(directory).clock(clock::get).build();
        Dao dao = track(open(options));
        dao.upsert(Entry.value(key("a"), value("v"), hybrid(start), start + 10));
        dao.upsert(Entry.value(key("b"), value("v"), hybrid(start), start + 20));
        clock.set(start + 10);
        dao.close();
        dao = track(open(options));
        assertEquals(Entry.tombstone(key("a"), hybrid(start)), dao.get(key("a")));
        assertEquals(Entry.value(key("b"), value("v"), hybrid(start), start + 20), dao.get(key("b")));
    }

    @Test
    void atEqualTimestampsAnExpiringValueWinsOverAPlainOne() throws IOException {
        AtomicLong clock = new AtomicLong(1000);
        Dao dao = track(open(DaoOptions.builder(directory).clock(clock::get).build()));
        dao.upsert(Entry.value(key("a"), value("zzz plain"), 5));
        dao.upsert(Entry.value(key("a"), value("aaa expiring"), 5, 2000));
        dao.upsert(Entry.value(key("a"), value("zzz plain again"), 5));
        assertEquals(Entry.value(key("a"), value("aaa expiring"), 5, 2000), dao.get(key("a")));
        dao.flush();
        dao.upsert(Entry.value(key("a"), value("zzz"), 5, 3000));
        assertEquals(Entry.value(key("a"), value("aaa expiring"), 5, 2000), dao.get(key("a")), "the earlier expiry");
        clock.set(2000);
        assertEquals(Entry.tombstone(key("a"), 5), dao.get(key("a")));
    }

    // ---- durability and exclusivity ----

    @Test
    void reopenKeepsEverything() throws IOException {
        Dao dao = openDefault();
        for (int i = 0; i < 500; i++) {
            dao.upsert(Entry.value(key("k" + i), value("v" + i), i));
            if (i == 250) {
                dao.flush();
            }
        }
        dao.upsert(Entry.tombstone(key("k7"), 1000));
        reopen(dao);
        Dao again = reopened();
        for (int i = 0; i < 500; i++) {
            Entry got = again.get(key("k" + i));
            if (i == 7) {
                assertTrue(got == null || got.isTombstone(), "deleted key must stay deleted: " + got);
            } else {
                assertEquals(Entry.value(key("k" + i), value("v" + i), i), got);
            }
        }
    }

    @Test
    void secondOpenOfSameDirectoryFailsClearly() throws IOException {
        openDefault();
        IOException e = assertThrows(IOException.class, () -> open(DaoOptions.defaults(directory)));
        assertNotNull(e.getMessage());
        assertTrue(e.getMessage().contains(directory.getFileName().toString()),
                "the error must name the directory: " + e.getMessage());
    }

    @Test
    void directoryCanBeReopenedAfterClose() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("1"), 1));
        dao.close();
        dao.close();
        Dao again = track(open(DaoOptions.defaults(directory)));
        assertEquals(Entry.value(key("a"), value("1"), 1), again.get(key("a")));
    }

    // ---- calls for threads that must not block ----

    @Test
    void asyncCallsSeeTheSameStoreAsBlockingOnes() throws Exception {
        Dao dao = openDefault();
        ExecutorService mayBlock = Executors.newSingleThreadExecutor();
        try {
            dao.upsertAsync(Entry.value(key("a"), value("1"), 10), mayBlock).get(10, TimeUnit.SECONDS);
            assertEquals(Entry.value(key("a"), value("1"), 10), dao.get(key("a")));
            dao.upsert(Entry.value(key("b"), value("2"), 20));
            assertEquals(Entry.value(key("b"), value("2"), 20), dao.getAsync(key("b"), mayBlock).get(10, TimeUnit.SECONDS));
            dao.upsertAsync(Entry.tombstone(key("a"), 30), mayBlock).get(10, TimeUnit.SECONDS);
            dao.upsertAsync(Entry.value(key("b"), value("stale"), 5), mayBlock).get(10, TimeUnit.SECONDS);
            dao.flush();
            assertEquals(Entry.tombstone(key("a"), 30), dao.getAsync(key("a"), mayBlock).get(10, TimeUnit.SECONDS));
            assertEquals(Entry.value(key("b"), value("2"), 20), dao.getAsync(key("b"), mayBlock).get(10, TimeUnit.SECONDS));
            assertNull(dao.getAsync(key("missing"), mayBlock).get(10, TimeUnit.SECONDS));
        } finally {
            mayBlock.shutdownNow();
        }
    }

    @Test
    void asyncCallsFailThroughTheFutureNeverThrow() throws Exception {
        Dao dao = openDefault();
        Executor rejecting = task -> {
            throw new RejectedExecutionException("pool shut down");
        };
        // In line or on the executor, the engine decides; a call it hands over fails with the rejection.
        CompletableFuture<Void> write = dao.upsertAsync(Entry.value(key("a"), value("1"), 1), rejecting);
        CompletableFuture<Entry> read = dao.getAsync(key("a"), rejecting);
        for (CompletableFuture<?> call : List.of(write, read)) {
            assertTrue(call.isDone(), "a call the executor rejected must not hang");
            if (call.isCompletedExceptionally()) {
                ExecutionException e = assertThrows(ExecutionException.class, call::get);
                assertTrue(e.getCause() instanceof RejectedExecutionException, "unexpected failure: " + e.getCause());
            }
        }
        dao.close();
        assertThrows(ExecutionException.class, () -> dao.getAsync(key("a"), Runnable::run).get(10, TimeUnit.SECONDS));
        assertThrows(ExecutionException.class,
                () -> dao.upsertAsync(Entry.value(key("b"), value("2"), 2), Runnable::run).get(10, TimeUnit.SECONDS));
    }

    // ---- concurrency ----

    @Test
    void concurrentWritersAndReadersKeepHighestTimestamp() throws Exception {
        Dao dao = track(open(DaoOptions.builder(directory).flushThresholdBytes(16 << 10).build()));
        int writers = 4;
        int hotKeys = 32;
        int perWriter = 1500;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        try {
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Future<?>> writes = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                writes.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perWriter; i++) {
                        dao.upsert(Entry.value(key("w" + writer + "-" + i), value("v" + i), i));
                        // Unique timestamps per hot key, interleaved across writers and out of order.
                        long ts = (long) ((i * 7919) % perWriter) * writers + writer;
                        dao.upsert(Entry.value(key("hot" + (i % hotKeys)), value(Long.toString(ts)), ts));
                    }
                    return null;
                }));
            }
            List<Future<?>> reads = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                reads.add(pool.submit(() -> {
                    long[] seen = new long[hotKeys];
                    Arrays.fill(seen, Long.MIN_VALUE);
                    start.await();
                    Random random = new Random();
                    while (writing.get()) {
                        int k = random.nextInt(hotKeys);
                        Entry e = dao.get(key("hot" + k));
                        if (e != null) {
                            assertTrue(e.timestamp() >= seen[k], "visible version went back in time");
                            assertEquals(Long.toString(e.timestamp()), new String(e.value(), StandardCharsets.UTF_8));
                            seen[k] = e.timestamp();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : writes) {
                f.get(60, TimeUnit.SECONDS);
            }
            writing.set(false);
            for (Future<?> f : reads) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int k = 0; k < hotKeys; k++) {
            long max = Long.MIN_VALUE;
            for (int w = 0; w < writers; w++) {
                for (int i = k; i < perWriter; i += hotKeys) {
                    max = Math.max(max, (long) ((i * 7919) % perWriter) * writers + w);
                }
            }
            assertEquals(max, dao.get(key("hot" + k)).timestamp(), "hot key " + k);
        }
        for (int w = 0; w < writers; w++) {
            for (int i = 0; i < perWriter; i++) {
                assertEquals(Entry.value(key("w" + w + "-" + i), value("v" + i), i), dao.get(key("w" + w + "-" + i)));
            }
        }
    }

    @Test
    void rangeIteratorReadsSnapshotWhileWritesFlushesAndCompactionsRun() throws Exception {
        Dao dao = track(open(DaoOptions.builder(directory).flushThresholdBytes(4 << 10).compactionTrigger(2).build()));
        int count = 2000;
        List<Entry> original = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Entry e = Entry.value(key(String.format("k%05d", i)), value("v1-" + i), 1);
            original.add(e);
            dao.upsert(e);
        }
        dao.flush();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (CloseableIterator<Entry> iterator = dao.range(null, null)) {
            List<Entry> seen = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                seen.add(iterator.next());
            }
            CountDownLatch writerStarted = new CountDownLatch(1);
            Future<?> writer = pool.submit(() -> {
                writerStarted.countDown();
                for (int i = 0; i < count; i++) {
                    String name = String.format("k%05d", i);
                    if (i % 3 == 0) {
                        dao.upsert(Entry.tombstone(key(name), 2));
                    } else {
                        dao.upsert(Entry.value(key(name), value("v2-" + i), 2));
                    }
                    dao.upsert(Entry.value(key(name + "-new"), value("n" + i), 2));
                    if (i % 500 == 499) {
                        dao.flush();
                    }
                }
                dao.flush();
                dao.compact();
                return null;
            });
            writerStarted.await();
            // Half of the rest while the writer runs, the other half after it finished.
            for (int i = 0; i < count / 2 && iterator.hasNext(); i++) {
                seen.add(iterator.next());
            }
            writer.get(120, TimeUnit.SECONDS);
            while (iterator.hasNext()) {
                seen.add(iterator.next());
            }
            assertEquals(original, seen, "the iterator must show the snapshot taken when it was opened");
        } finally {
            pool.shutdownNow();
        }
        List<Entry> after = toList(dao.range(key("k00000"), key("k00003")));
        assertEquals(List.of("k00000-new", "k00001", "k00001-new", "k00002", "k00002-new"), presentKeyNames(after));
    }

    // ---- ingestion ----

    @Test
    void ingestedEntriesReadBackAndSurviveReopen() throws IOException {
        Dao dao = openDefault();
        List<Entry> batch = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String name = String.format("i%05d", i);
            batch.add(i % 7 == 0 ? Entry.tombstone(key(name), 10 + i) : Entry.value(key(name), value(name), 10 + i));
        }
        dao.ingest(batch);
        assertIngested(dao, batch);
        reopen(dao);
        assertIngested(reopened(), batch);
    }

    private static void assertIngested(Dao dao, List<Entry> batch) throws IOException {
        for (Entry expected : batch) {
            Entry actual = dao.get(expected.key());
            assertNotNull(actual, new String(expected.key(), StandardCharsets.UTF_8));
            assertEquals(expected.timestamp(), actual.timestamp());
            assertEquals(expected.isTombstone(), actual.isTombstone());
            if (!expected.isTombstone()) {
                assertArrayEquals(expected.value(), actual.value());
            }
        }
        assertEquals(batch.size(), toList(dao.range(key("i"), key("j"))).size());
    }

    @Test
    void ingestedVersionsMeetTheStoresByTimestamp() throws IOException {
        Dao dao = openDefault();
        dao.upsert(Entry.value(key("a"), value("a-newer"), 20));
        dao.upsert(Entry.value(key("b"), value("b-older"), 5));
        dao.upsert(Entry.value(key("c"), value("c-older"), 5));
        dao.flush();
        dao.upsert(Entry.value(key("d"), value("d-in-memory"), 30));
        dao.ingest(List.of(
                Entry.value(key("a"), value("a-stale"), 10),
                Entry.value(key("b"), value("b-ingested"), 10),
                Entry.tombstone(key("c"), 10),
                Entry.value(key("d"), value("d-stale"), 10),
                Entry.value(key("e"), value("e-new"), 10)));
        assertArrayEquals(value("a-newer"), dao.get(key("a")).value());
        assertArrayEquals(value("b-ingested"), dao.get(key("b")).value());
        assertTrue(dao.get(key("c")).isTombstone());
        assertArrayEquals(value("d-in-memory"), dao.get(key("d")).value());
        assertArrayEquals(value("e-new"), dao.get(key("e")).value());
        assertEquals(List.of("a-newer", "b-ingested", "d-in-memory", "e-new"), presentValues(dao));
        // A later write of an older timestamp loses to an ingested version, and compaction keeps it so.
        dao.upsert(Entry.value(key("b"), value("b-late-stale"), 7));
        dao.compact();
        assertArrayEquals(value("b-ingested"), dao.get(key("b")).value());
        assertEquals(List.of("a-newer", "b-ingested", "d-in-memory", "e-new"), presentValues(dao));
    }

    private static List<String> presentValues(Dao dao) throws IOException {
        List<String> values = new ArrayList<>();
        for (Entry e : toList(dao.range(null, null))) {
            if (!e.isTombstone()) {
                values.add(new String(e.value(), StandardCharsets.UTF_8));
            }
        }
        return values;
    }

    @Test
    void ingestRefusesKeysOutOfOrderAndStoresNothing() throws IOException {
        Dao dao = openDefault();
        List<Entry> unsorted = List.of(Entry.value(key("a"), value("1"), 1), Entry.value(key("c"), value("1"), 1),
                Entry.value(key("b"), value("1"), 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> dao.ingest(unsorted));
        assertTrue(e.getMessage().contains("'b'") && e.getMessage().contains("'c'"), e.getMessage());
        List<Entry> repeated = List.of(Entry.value(key("a"), value("1"), 1), Entry.value(key("a"), value("2"), 2));
        assertThrows(IllegalArgumentException.class, () -> dao.ingest(repeated));
        assertThrows(NullPointerException.class, () -> dao.ingest(null));
        assertEquals(List.of(), toList(dao.range(null, null)));
        dao.ingest(List.of());
        assertEquals(List.of(), toList(dao.range(null, null)));
    }

    @Test
    void ingestedBatchesInterleavedWithWritesAndCompactions() throws IOException {
        Dao dao = openDefault();
        Random random = new Random(7);
        TreeMap<String, Entry> model = new TreeMap<>();
        long clock = 1;
        for (int round = 0; round < 40; round++) {
            // Each batch: every fifth key of a random stride, so batches interleave in key order.
            TreeMap<String, Entry> batch = new TreeMap<>();
            int start = random.nextInt(5);
            for (int k = start; k < 2000; k += 5 + random.nextInt(20)) {
                String name = String.format("k%05d", k);
                // Some versions older than the store's, but never over a tombstone: compaction may have
                // dropped it, and a late version over a dropped tombstone reappears (DaoOptions.tombstoneGrace).
                Entry current = model.get(name);
                boolean stale = random.nextInt(4) == 0 && (current == null || !current.isTombstone());
                long ts = stale ? Math.max(1, clock - random.nextInt(50)) : clock++;
                batch.put(name, random.nextInt(6) == 0 ? Entry.tombstone(key(name), ts)
                        : Entry.value(key(name), value(name + "@" + ts), ts));
            }
            dao.ingest(new ArrayList<>(batch.values()));
            batch.forEach((name, entry) -> model.merge(name, entry, (a, b) -> Entry.compareVersions(a, b) >= 0 ? a : b));
            for (int w = 0; w < 50; w++) {
                String name = String.format("k%05d", random.nextInt(2000));
                Entry entry = Entry.value(key(name), value(name + "@" + clock), clock++);
                dao.upsert(entry);
                model.merge(name, entry, (a, b) -> Entry.compareVersions(a, b) >= 0 ? a : b);
            }
            if (round % 10 == 9) {
                dao.compact();
            } else if (round % 3 == 2) {
                dao.flush();
            }
        }
        for (Entry expected : model.values()) {
            Entry actual = dao.get(expected.key());
            String what = new String(expected.key(), StandardCharsets.UTF_8);
            if (expected.isTombstone()) {
                assertTrue(actual == null || actual.isTombstone(), what + " reads " + actual);
            } else {
                assertNotNull(actual, what);
                assertArrayEquals(expected.value(), actual.value(), what);
            }
        }
        List<String> present = new ArrayList<>();
        model.forEach((name, entry) -> {
            if (!entry.isTombstone()) {
                present.add(name);
            }
        });
        assertEquals(present, presentKeyNames(toList(dao.range(null, null))));
    }

    // ---- helpers ----

    protected static byte[] key(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }

    protected static byte[] value(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    protected static List<Entry> toList(CloseableIterator<Entry> iterator) {
        try (iterator) {
            List<Entry> list = new ArrayList<>();
            while (iterator.hasNext()) {
                list.add(iterator.next());
            }
            return list;
        }
    }

    private Dao openDefault() throws IOException {
        return track(open(DaoOptions.defaults(directory)));
    }

    private Dao openOther() throws IOException {
        return track(open(DaoOptions.defaults(directory.resolve("other"))));
    }

    private Dao track(Dao dao) {
        opened.add(dao);
        return dao;
    }

    private void reopen(Dao dao) throws IOException {
        dao.close();
        track(open(DaoOptions.defaults(directory)));
    }

    private Dao reopened() {
        return opened.get(opened.size() - 1);
    }

    private Dao daoWithKeys(String... names) throws IOException {
        Dao dao = openDefault();
        for (String name : names) {
            dao.upsert(Entry.value(key(name), value(name), 1));
        }
        return dao;
    }

    private static void assertKeyNames(List<String> expected, CloseableIterator<Entry> range) {
        List<String> actual = new ArrayList<>();
        for (Entry e : toList(range)) {
            actual.add(new String(e.key(), StandardCharsets.UTF_8));
        }
        assertEquals(expected, actual);
    }

    private static List<String> presentKeyNames(List<Entry> entries) {
        List<String> names = new ArrayList<>();
        for (Entry e : entries) {
            if (!e.isTombstone()) {
                names.add(new String(e.key(), StandardCharsets.UTF_8));
            }
        }
        return names;
    }

    private static void assertKeys(byte[][] expected, List<Entry> entries) {
        assertEquals(expected.length, entries.size());
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], entries.get(i).key(), "position " + i);
        }
    }
}
