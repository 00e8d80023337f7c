package io.kvstore.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link Dao#cleanup} must do in every engine: the keys the filter rejects are gone, with no
 * tombstone left for them; every other key reads as before (values, tombstones, expiries); writes made
 * while it runs are not lost. An engine's test extends this class and implements {@link #open}.
 */
public abstract class DaoCleanupContractTest {
    private static final long START = 1_700_000_000_000L;
    /** Keys whose number is odd are given up. */
    private static final KeyFilter EVEN_KEYS = key -> number(key) % 2 == 0;

    @TempDir
    protected Path directory;

    private final AtomicLong clock = new AtomicLong(START);
    private final List<Dao> opened = new ArrayList<>();

    /** Opens the engine under test with {@code options}. */
    protected abstract Dao open(DaoOptions options) throws IOException;

    @AfterEach
    void closeEverythingOpened() throws IOException {
        for (Dao dao : opened) {
            dao.close();
        }
    }

    @Test
    void rejectedKeysAreGoneAndTheOthersReadAsBefore() throws IOException {
        Dao dao = openAt(options());
        List<Entry> expected = new ArrayList<>();
        int keys = 300;
        for (int i = 0; i < keys; i++) {
            Entry entry = versionOf(i, hybrid(START) + i);
            dao.upsert(entry);
            if (i % 2 == 0) {
                expected.add(entry);
            }
            if (i % 100 == 99) {
                dao.flush();
            }
        }
        // Older versions below the ones above, in tables and in the memtable: the cleanup drops them too.
        dao.upsert(Entry.value(key(1), value("older"), hybrid(START) - 1));
        dao.upsert(Entry.value(key(2), value("older"), hybrid(START) - 1));
        clock.set(START + 1);

        assertEquals(keys / 2, dao.cleanup(EVEN_KEYS), "one count per key given up");

        for (int i = 1; i < keys; i += 2) {
            assertNull(dao.get(key(i)), "key " + i + " given up, no tombstone left");
        }
        assertEquals(expected, all(dao), "kept keys: values, tombstones and expiries as before");
        assertTrue(dao.get(key(0)).isTombstone(), "a tombstone within its grace is kept");
        assertEquals(START + 1000, dao.get(key(2)).expiresAtMillis(), "an expiry is kept");

        clock.set(START + 1000);
        assertEquals(Entry.tombstone(key(2), hybrid(START) + 2), dao.get(key(2)), "and still expires");
    }

    @Test
    void aKeyGivenUpTakesItsOwnVersionBackLater() throws IOException {
        Dao dao = openAt(options());
        Entry given = Entry.value(key(1), value("v"), hybrid(START));
        Entry deleted = Entry.tombstone(key(3), hybrid(START));
        dao.upsert(given);
        dao.upsert(deleted);
        dao.flush();

        assertEquals(2, dao.cleanup(EVEN_KEYS));
        assertNull(dao.get(key(1)));

        dao.upsert(given);
        assertEquals(given, dao.get(key(1)), "the same version streamed back is stored, not shadowed");
        Entry older = Entry.value(key(3), value("older than the tombstone that was dropped"), hybrid(START) - 1);
        dao.upsert(older);
        assertEquals(older, dao.get(key(3)), "nothing of the key was left to shadow it");
    }

    @Test
    void aCleanupOutlivesAReopen() throws IOException {
        Dao dao = openAt(options());
        for (int i = 0; i < 50; i++) {
            dao.upsert(Entry.value(key(i), value("v" + i), hybrid(START) + i));
        }
        assertEquals(25, dao.cleanup(EVEN_KEYS));
        dao.close();

        dao = openAt(options());
        for (int i = 0; i < 50; i++) {
            if (i % 2 == 0) {
                assertEquals(Entry.value(key(i), value("v" + i), hybrid(START) + i), dao.get(key(i)));
            } else {
                assertNull(dao.get(key(i)), "key " + i + " does not come back from the log");
            }
        }
    }

    @Test
    void aCleanupOfAnEmptyStoreRemovesNothing() throws IOException {
        Dao dao = openAt(options());
        assertEquals(0, dao.cleanup(EVEN_KEYS));
        dao.upsert(Entry.value(key(2), value("v"), hybrid(START)));
        assertEquals(0, dao.cleanup(EVEN_KEYS));
        assertEquals(Entry.value(key(2), value("v"), hybrid(START)), dao.get(key(2)));
    }

    @Test
    void writesMadeWhileACleanupRunsAreNotLost() throws Exception {
        Dao dao = openAt(options().toBuilder().flushThresholdBytes(16 << 10).build());
        int before = 2_000;
        for (int i = 0; i < before; i++) {
            dao.upsert(Entry.value(key(i), value("before" + i), hybrid(START) + i));
        }
        dao.flush();
        // The cleanup stops at its first key until the writer is done: every write below lands while it
        // runs, through memtable switches and flushes.
        CountDownLatch cleanupStarted = new CountDownLatch(1);
        CountDownLatch writesDone = new CountDownLatch(1);
        KeyFilter waitingFilter = key -> {
            if (cleanupStarted.getCount() > 0) {
                cleanupStarted.countDown();
                try {
                    writesDone.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return EVEN_KEYS.keeps(key);
        };
        CompletableFuture<Long> cleanup = CompletableFuture.supplyAsync(() -> {
            try {
                return dao.cleanup(waitingFilter);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(cleanupStarted.await(30, TimeUnit.SECONDS), "the cleanup reached its first key");
        int during = 2_000;
        List<Entry> written = new ArrayList<>();
        for (int i = 0; i < during; i++) {
            // Kept keys only: a key given up may or may not survive a write racing its cleanup.
            int number = 2 * (i % (before / 2));
            Entry entry = Entry.value(key(number), value("during" + i), hybrid(START) + before + i);
            dao.upsert(entry);
            written.add(entry);
        }
        writesDone.countDown();
        assertTrue(cleanup.get(60, TimeUnit.SECONDS) <= before / 2);

        for (Entry entry : written.subList(written.size() - before / 2, written.size())) {
            assertEquals(entry, dao.get(entry.key()), "the last write of each key survives the cleanup");
        }
        for (int i = 1; i < before; i += 2) {
            assertNull(dao.get(key(i)), "key " + i + " given up");
        }
    }

    private DaoOptions options() {
        return DaoOptions.builder(directory).clock(clock::get).build();
    }

    private Dao openAt(DaoOptions options) throws IOException {
        Dao dao = open(options);
        opened.add(dao);
        return dao;
    }

    /** Key {@code i}: a tombstone every 10, a value expiring at START + 1000 every 10 + 2, else a plain value. */
    private static Entry versionOf(int i, long timestamp) {
        if (i % 10 == 0) {
            return Entry.tombstone(key(i), timestamp);
        }
        if (i % 10 == 2) {
            return Entry.value(key(i), value("expiring" + i), timestamp, START + 1000);
        }
        return Entry.value(key(i), value("value" + i), timestamp);
    }

    private static List<Entry> all(Dao dao) throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (CloseableIterator<Entry> range = dao.range(null, null)) {
            range.forEachRemaining(entries::add);
        }
        return entries;
    }

    private static long hybrid(long millis) {
        return millis << 16;
    }

    /** Fixed width, so that key order is number order. */
    private static byte[] key(int number) {
        return String.format("key%06d", number).getBytes(StandardCharsets.UTF_8);
    }

    private static int number(byte[] key) {
        return Integer.parseInt(new String(key, 3, key.length - 3, StandardCharsets.UTF_8));
    }

    private static byte[] value(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
