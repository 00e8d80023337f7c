package io.kvstore.core;

import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random operations against a {@link TreeMap} model: puts, deletes, stale and equal-timestamp writes, ingested batches,
 * gets, ranges, flushes, compactions and reopens, with a tiny flush threshold so that hundreds of
 * tables, flushes and compactions happen.
 *
 * <p>One put in five carries an expiry within two seconds of the store's clock, which the test moves on
 * by random steps; the model shows an expired value as a tombstone of its timestamp, and stale writes
 * treat it as the tombstone it has become.
 *
 * <p>Half the puts and gets go through {@link Dao#getAsync} and {@link Dao#upsertAsync} with a
 * separate thread as the executor that may block, so both placements of a call meet the same model.
 *
 * <p>The seed is printed; replay a failure with {@code -Dkv.seed=<seed>}. The number of operations
 * is {@code -Dkv.modelOps} (default {@link #defaultOperations()}).
 *
 * <p>A deleted key may read as its tombstone or, once compaction dropped the tombstone, as
 * {@code null}: both mean absent. For the same reason stale writes (older than the visible version)
 * are only aimed at keys whose visible version is a value: against a dropped tombstone, whether a
 * stale write reappears depends on when compaction ran, which the contract leaves open.
 */
@Tag("slow")
public abstract class DaoModelTest {
    private static final int KEY_SPACE = 3000;
    private static final int RANGE_CHECK_LIMIT = 100;

    @TempDir
    protected Path directory;

    private Dao dao;
    private final ExecutorService mayBlock = Executors.newSingleThreadExecutor();
    private Random random;
    /** The store's clock, which the test moves on: values expire against it. */
    private final AtomicLong wallClock = new AtomicLong(1_000_000);

    /** Opens the engine under test with {@code options}. */
    protected abstract Dao open(DaoOptions options) throws IOException;

    /** Operations per run unless {@code -Dkv.modelOps} says otherwise. */
    protected int defaultOperations() {
        return 100_000;
    }

    @AfterEach
    void closeDao() throws IOException {
        mayBlock.shutdownNow();
        if (dao != null) {
            dao.close();
        }
    }

    @Test
    void randomOperationsMatchSortedMapModel() throws IOException {
        long seed = Seeds.seed(getClass().getSimpleName());
        int operations = Integer.getInteger("kv.modelOps", defaultOperations());
        try {
            run(new Random(seed), operations);
        } catch (AssertionError | IOException | RuntimeException e) {
            throw new AssertionError("Failed with seed " + seed + " (replay with -Dkv.seed=" + seed + "): " + e, e);
        }
    }

    private void run(Random random, int operations) throws IOException {
        this.random = random;
        DaoOptions options = DaoOptions.builder(directory)
                .flushThresholdBytes(1024 + random.nextInt(3 * 1024))
                .compactionTrigger(2 + random.nextInt(3))
                .clock(wallClock::get)
                .build();
        dao = open(options);
        byte[][] keys = keySpace(random);
        NavigableMap<byte[], Entry> model = new TreeMap<>(Bytes.ORDER);
        long clock = 1;
        int flushes = 0;
        int compactions = 0;
        int reopens = 0;
        int ingests = 0;
        for (int op = 0; op < operations; op++) {
            int dice = random.nextInt(1000);
            byte[] key = keys[random.nextInt(keys.length)];
            if (random.nextInt(10) == 0) {
                wallClock.addAndGet(random.nextInt(100));
            }
            if (random.nextInt(250) == 0) {
                // A batch ingested: sorted keys, new versions, and stale ones (only over values, as below).
                NavigableMap<byte[], Entry> batch = new TreeMap<>(Bytes.ORDER);
                for (int n = 1 + random.nextInt(40); n > 0; n--) {
                    byte[] k = keys[random.nextInt(keys.length)];
                    Entry current = visible(model.get(k));
                    boolean stale = random.nextInt(4) == 0 && current != null && !current.isTombstone()
                            && current.timestamp() > 1;
                    long ts = stale ? current.timestamp() - 1 : clock++;
                    batch.put(k, random.nextInt(5) == 0 ? Entry.tombstone(k, ts) : Entry.value(k, randomValue(random), ts));
                }
                dao.ingest(new ArrayList<>(batch.values()));
                for (Entry entry : batch.values()) {
                    Entry current = model.get(entry.key());
                    if (current == null || Entry.compareVersions(entry, current) >= 0) {
                        model.put(entry.key(), entry);
                    }
                }
                ingests++;
                continue;
            }
            if (dice < 400) {
                // One put in five expires within two seconds of the store's clock.
                Entry entry = random.nextInt(5) == 0
                        ? Entry.value(key, randomValue(random), clock++, wallClock.get() + 1 + random.nextInt(2000))
                        : Entry.value(key, randomValue(random), clock++);
                apply(model, entry);
            } else if (dice < 450) {
                // An equal timestamp: the tombstone, then the larger value wins, whatever the order. Not a
                // value over a tombstone: compaction may have dropped the tombstone, and a late write over
                // a dropped tombstone reappears, the documented price of dropping them.
                Entry current = visible(model.get(key));
                long ts = current == null ? clock++ : current.timestamp();
                boolean tombstone = (current != null && current.isTombstone()) || random.nextBoolean();
                apply(model, tombstone ? Entry.tombstone(key, ts) : Entry.value(key, randomValue(random), ts));
            } else if (dice < 500) {
                // A stale write: must be ignored.
                Entry current = visible(model.get(key));
                if (current != null && !current.isTombstone() && current.timestamp() > 0) {
                    long ts = current.timestamp() - 1 - random.nextInt((int) Math.min(current.timestamp(), 50));
                    Entry stale = random.nextBoolean() ? Entry.value(key, randomValue(random), ts) : Entry.tombstone(key, ts);
                    upsert(stale);
                }
            } else if (dice < 650) {
                apply(model, Entry.tombstone(key, clock++));
            } else if (dice < 900) {
                checkGet(model, key);
            } else if (dice < 985) {
                checkRange(model, random, keys);
            } else if (dice < 993) {
                dao.flush();
                flushes++;
            } else if (dice < 998) {
                dao.compact();
                compactions++;
            } else {
                dao.close();
                dao = open(options);
                reopens++;
            }
        }
        checkEverything(model);
        System.out.println(getClass().getSimpleName() + ": " + operations + " operations, " + flushes + " flushes, "
                + compactions + " compactions, " + reopens + " reopens, " + ingests + " ingested batches, " + model.size() + " keys in the model");
    }

    private void apply(NavigableMap<byte[], Entry> model, Entry entry) throws IOException {
        upsert(entry);
        Entry current = model.get(entry.key());
        if (current == null || Entry.compareVersions(entry, current) >= 0) {
            model.put(entry.key(), entry);
        }
    }

    private void checkGet(NavigableMap<byte[], Entry> model, byte[] key) throws IOException {
        Entry actual = random.nextBoolean() ? dao.get(key) : join(dao.getAsync(key, mayBlock));
        assertSameVisibility(visible(model.get(key)), actual, key);
    }

    /** {@code entry} as the store must show it now: expired, a tombstone of its timestamp. */
    private Entry visible(Entry entry) {
        return entry == null ? null : entry.asOf(wallClock.get());
    }

    private void upsert(Entry entry) throws IOException {
        if (random.nextBoolean()) {
            dao.upsert(entry);
        } else {
            join(dao.upsertAsync(entry, mayBlock));
        }
    }

    private static <T> T join(CompletableFuture<T> call) throws IOException {
        try {
            return call.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IOException("async call failed", e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new IOException("async call did not complete", e);
        }
    }

    private static void assertSameVisibility(Entry expected, Entry actual, byte[] key) {
        String what = "key " + Bytes.toDebugString(key);
        if (expected == null) {
            assertNull(actual, what + " was never written");
        } else if (expected.isTombstone()) {
            if (actual != null) {
                assertTrue(actual.isTombstone(), what + " is deleted but reads " + actual);
                assertEquals(expected.timestamp(), actual.timestamp(), what + " tombstone timestamp");
            }
        } else {
            assertNotNull(actual, what + " is missing; expected " + expected);
            assertFalse(actual.isTombstone(), what + " reads as deleted; expected " + expected);
            assertEquals(expected.timestamp(), actual.timestamp(), what + " timestamp");
            assertArrayEquals(expected.value(), actual.value(), what + " value");
        }
    }

    private void checkRange(NavigableMap<byte[], Entry> model, Random random, byte[][] keys) throws IOException {
        byte[] from = random.nextInt(8) == 0 ? null : keys[random.nextInt(keys.length)];
        byte[] to = random.nextInt(8) == 0 ? null : keys[random.nextInt(keys.length)];
        NavigableMap<byte[], Entry> expected = model;
        if (from != null && to != null && Bytes.compare(from, to) >= 0) {
            expected = new TreeMap<>(Bytes.ORDER);
        } else if (from != null && to != null) {
            expected = model.subMap(from, true, to, false);
        } else if (from != null) {
            expected = model.tailMap(from, true);
        } else if (to != null) {
            expected = model.headMap(to, false);
        }
        int limit = random.nextInt(50) == 0 ? Integer.MAX_VALUE : RANGE_CHECK_LIMIT;
        // A scan reads the same entries as a range, past the block cache.
        CloseableIterator<Entry> entries = random.nextInt(4) == 0 ? dao.scan(from, to) : dao.range(from, to);
        assertRangeMatches(expected, entries, limit, wallClock.get());
    }

    private void checkEverything(NavigableMap<byte[], Entry> model) throws IOException {
        assertRangeMatches(model, dao.range(null, null), Integer.MAX_VALUE, wallClock.get());
        for (Map.Entry<byte[], Entry> e : model.entrySet()) {
            assertSameVisibility(visible(e.getValue()), dao.get(e.getKey()), e.getKey());
        }
    }

    /**
     * Compares present entries (up to {@code limit} of them) and checks any tombstone shown, with the
     * model's values expired at {@code nowMillis} as tombstones.
     */
    private static void assertRangeMatches(NavigableMap<byte[], Entry> expected, CloseableIterator<Entry> actual,
                                           int limit, long nowMillis) {
        try (actual) {
            Iterator<Entry> wanted = expected.values().iterator();
            byte[] previousKey = null;
            int checked = 0;
            while (checked < limit && actual.hasNext()) {
                Entry got = actual.next();
                if (previousKey != null) {
                    assertTrue(Bytes.compare(previousKey, got.key()) < 0, "range keys out of order at " + got);
                }
                previousKey = got.key();
                if (got.isTombstone()) {
                    Entry model = expected.get(got.key());
                    assertNotNull(model, "range shows a tombstone for a key never written: " + got);
                    assertSameVisibility(model.asOf(nowMillis), got, got.key());
                    continue;
                }
                Entry want = nextPresent(wanted, nowMillis);
                if (want == null) {
                    fail("range returned an entry the model does not have: " + got);
                }
                assertArrayEquals(want.key(), got.key(),
                        "range expected key " + Bytes.toDebugString(want.key()) + " but got " + got);
                assertSameVisibility(want, got, got.key());
                checked++;
            }
            if (checked < limit) {
                Entry missing = nextPresent(wanted, nowMillis);
                assertNull(missing, "range ended early; the model still has " + missing);
            }
        }
    }

    private static Entry nextPresent(Iterator<Entry> entries, long nowMillis) {
        while (entries.hasNext()) {
            Entry e = entries.next().asOf(nowMillis);
            if (!e.isTombstone()) {
                return e;
            }
        }
        return null;
    }

    /** Keys of 1..12 bytes, biased towards 0x00 and 0xFF so unsigned order and prefixes matter. */
    private static byte[][] keySpace(Random random) {
        TreeMap<byte[], Boolean> unique = new TreeMap<>(Bytes.ORDER);
        while (unique.size() < KEY_SPACE) {
            byte[] key = new byte[1 + random.nextInt(12)];
            for (int i = 0; i < key.length; i++) {
                int kind = random.nextInt(6);
                key[i] = kind == 0 ? 0x00 : kind == 1 ? (byte) 0xFF : (byte) random.nextInt(256);
            }
            unique.put(key, Boolean.TRUE);
        }
        return unique.keySet().toArray(new byte[0][]);
    }

    private static byte[] randomValue(Random random) {
        int length = random.nextInt(10) == 0 ? 0 : random.nextInt(random.nextInt(20) == 0 ? 2000 : 100);
        byte[] value = new byte[length];
        random.nextBytes(value);
        return value;
    }
}
