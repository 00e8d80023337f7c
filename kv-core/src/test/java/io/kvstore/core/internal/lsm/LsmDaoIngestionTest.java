package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.testing.Seeds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ingested batches become tables in the levels, never log records or memtable entries, and keep the levels sound. */
class LsmDaoIngestionTest {
    @TempDir
    Path dir;

    private DaoOptions.Builder leveled() {
        return DaoOptions.builder(dir).compactionStyle(CompactionStyle.LEVELED).compression(Compression.NONE)
                .flushThresholdBytes(32 << 10).targetTableBytes(16 << 10).levelBaseBytes(64 << 10)
                .compactionTrigger(4).tombstoneGrace(Duration.ZERO);
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** Keys {@code from, from + step, ...} below {@code to}, each a value of timestamp {@code ts}. */
    private static List<Entry> batch(int from, int to, int step, long ts) {
        List<Entry> entries = new ArrayList<>();
        for (int i = from; i < to; i += step) {
            entries.add(Entry.value(key(i), ("v" + i + "@" + ts).getBytes(StandardCharsets.UTF_8), ts));
        }
        return entries;
    }

    @Test
    void batchesGoToTheDeepestLevelTheyFitWithoutTheLog() throws IOException {
        // A base level of 1 MiB lets level 5 hold these few kilobytes: no background compaction moves
        // the second batch down before the levels are read, nor does an idle store. Under EVERY_WRITE
        // each record the log takes is one sync (its file sizes are no measure: the next file and the
        // zeros of a mapped one are made in the background).
        try (LsmDao dao = LsmDao.open(leveled().levelBaseBytes(1 << 20).idleCompactionDelay(Duration.ZERO)
                .syncPolicy(SyncPolicy.EVERY_WRITE).build())) {
            dao.ingest(batch(0, 1000, 2, 1));
            DaoProperties first = dao.properties();
            assertEquals(0, first.memtableBytes(), "nothing in the memtable: " + first);
            assertEquals(0, first.walSyncs(), "nothing in the log: " + first);
            assertEquals(0, first.flushes(), "no flush: " + first);
            int last = LevelTargets.LAST_LEVEL;
            assertTrue(first.tablesPerLevel().get(last) > 0, "an empty store takes a batch at its last level: " + first);
            // Interleaved with the first: one level up. Beside it: the last level again.
            dao.ingest(batch(1, 1000, 2, 2));
            dao.ingest(batch(2000, 3000, 1, 3));
            int[] levels = dao.liveLevels();
            assertTrue(Arrays.stream(levels).anyMatch(level -> level == last - 1), Arrays.toString(levels));
            assertEquals(0, Arrays.stream(levels).filter(level -> level < last - 1).count(), Arrays.toString(levels));
            LeveledCompactionTest.assertLevelsDoNotOverlap(dao);
            for (int i = 0; i < 1000; i++) {
                assertNotNull(dao.get(key(i)), "key " + i);
            }
            assertEquals(0, dao.properties().walSyncs(), "nothing in the log: " + dao.properties());
            dao.upsert(Entry.value(key(5000), new byte[1], 4));
            assertEquals(1, dao.properties().walSyncs(), "a write is one record synced: " + dao.properties());
        }
    }

    @Test
    void underSizeTieredCompactionABatchIsWritten() throws IOException {
        try (LsmDao dao = LsmDao.open(DaoOptions.builder(dir).compactionStyle(CompactionStyle.SIZE_TIERED).build())) {
            dao.ingest(batch(0, 100, 1, 1));
            assertTrue(dao.properties().memtableBytes() > 0, "through the memtable: " + dao.properties());
            assertArrayEquals("v7@1".getBytes(StandardCharsets.UTF_8), dao.get(key(7)).value());
        }
    }

    /**
     * Batches ingested from two threads while a third writes and background compactions run: each level
     * stays free of overlaps, and every key reads its newest version.
     */
    @Test
    void ingestionBesideWritesAndBackgroundCompactions() throws Exception {
        long seed = Seeds.seed("LsmDaoIngestionTest");
        Map<Integer, Entry> newest = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (LsmDao dao = LsmDao.open(leveled().build())) {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int thread = t;
                work.add(pool.submit(() -> {
                    Random random = new Random(seed + thread);
                    for (int round = 0; round < 60; round++) {
                        TreeMap<Integer, Entry> entries = new TreeMap<>();
                        int start = random.nextInt(4000);
                        for (int i = start; i < Math.min(4000, start + 1500); i += 1 + random.nextInt(9)) {
                            // Timestamps of two writers never tie: thread t writes t mod 3.
                            long ts = (round * 10L + random.nextInt(5)) * 3 + thread;
                            // No tombstones: across threads a version older than a dropped tombstone would reappear.
                            entries.put(i, Entry.value(key(i), ("i" + ts).getBytes(StandardCharsets.UTF_8), ts));
                        }
                        dao.ingest(new ArrayList<>(entries.values()));
                        entries.forEach(keepNewest(newest));
                    }
                    return null;
                }));
            }
            work.add(pool.submit(() -> {
                Random random = new Random(seed + 7);
                for (int n = 0; n < 20_000; n++) {
                    int i = random.nextInt(4000);
                    long ts = (n / 35L) * 3 + 2;
                    Entry entry = Entry.value(key(i), ("w" + ts).getBytes(StandardCharsets.UTF_8), ts);
                    dao.upsert(entry);
                    keepNewest(newest).accept(i, entry);
                }
                return null;
            }));
            for (Future<?> f : work) {
                f.get(2, TimeUnit.MINUTES);
            }
            dao.awaitCompactions();
            LeveledCompactionTest.assertLevelsDoNotOverlap(dao);
            for (Map.Entry<Integer, Entry> e : newest.entrySet()) {
                Entry actual = dao.get(key(e.getKey()));
                Entry expected = e.getValue();
                String what = "key " + e.getKey() + " (seed " + seed + ")";
                assertNotNull(actual, what);
                assertEquals(expected.timestamp(), actual.timestamp(), what);
                assertArrayEquals(expected.value(), actual.value(), what);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static BiConsumer<Integer, Entry> keepNewest(Map<Integer, Entry> newest) {
        return (i, entry) -> newest.merge(i, entry, (a, b) -> Entry.compareVersions(a, b) >= 0 ? a : b);
    }
}
