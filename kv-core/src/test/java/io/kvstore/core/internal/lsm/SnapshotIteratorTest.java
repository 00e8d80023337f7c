package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.Coding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Range iterators read a fixed snapshot while flushes and compactions replace the files underneath. */
class SnapshotIteratorTest {
    private static final int KEYS = 2000;

    @TempDir
    Path dir;

    private DaoOptions options() {
        return DaoOptions.builder(dir).flushThresholdBytes(8 << 10).blockSizeBytes(512).compactionTrigger(2).build();
    }

    private static byte[] key(int i) {
        byte[] key = new byte[4];
        Coding.putInt(key, 0, Integer.reverseBytes(i)); // big-endian: key order is numeric order
        return key;
    }

    private static byte[] value(long generation) {
        byte[] value = new byte[8];
        Coding.putLong(value, 0, generation);
        return value;
    }

    @Test
    void iteratorKeepsItsSnapshotThroughOverwritesFlushAndCompaction() throws IOException {
        try (LsmDao dao = LsmDao.open(options())) {
            for (int i = 0; i < KEYS; i++) {
                dao.upsert(Entry.value(key(i), value(0), 1));
            }
            dao.flush();
            try (CloseableIterator<Entry> it = dao.range(null, null)) {
                for (int i = 0; i < KEYS / 2; i++) {
                    assertEquals(0, Coding.getLong(it.next().value(), 0));
                }
                for (int i = 0; i < KEYS; i++) {
                    dao.upsert(i % 3 == 0 ? Entry.tombstone(key(i), 2) : Entry.value(key(i), value(1), 2));
                }
                dao.upsert(Entry.value(key(KEYS + 5), value(1), 2));
                dao.compact();
                assertEquals(1, dao.liveTables().length);
                int seen = KEYS / 2;
                while (it.hasNext()) {
                    Entry e = it.next();
                    assertFalse(e.isTombstone());
                    assertEquals(0, Coding.getLong(e.value(), 0), "snapshot value of key " + seen);
                    seen++;
                }
                assertEquals(KEYS, seen);
                assertTrue(tableFiles() > 1, "tables replaced by compaction stay until the iterator closes");
            }
            assertEquals(1, tableFiles(), "closing the iterator deletes the replaced tables");
        }
    }

    @Test
    void concurrentIteratorsSeeConsistentGenerationsWhileWritesFlushAndCompact() throws Exception {
        try (LsmDao dao = LsmDao.open(options())) {
            for (int i = 0; i < KEYS; i++) {
                dao.upsert(Entry.value(key(i), value(0), 0));
            }
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService writer = Executors.newSingleThreadExecutor();
            // The writer rewrites every key in key order, generation after generation; a snapshot must
            // therefore see generation g+1 on a prefix of the keys and g on the rest.
            Future<Long> generations = writer.submit(() -> {
                long g = 0;
                while (!stop.get() && g < 30) {
                    g++;
                    for (int i = 0; i < KEYS; i++) {
                        dao.upsert(Entry.value(key(i), value(g), g));
                    }
                }
                return g;
            });
            int snapshots = 0;
            try {
                while (!generations.isDone() && snapshots < 200) {
                    try (CloseableIterator<Entry> it = dao.range(null, null)) {
                        long first = -1;
                        long previous = Long.MAX_VALUE;
                        int count = 0;
                        while (it.hasNext()) {
                            Entry e = it.next();
                            assertEquals(count, Integer.reverseBytes(Coding.getInt(e.key(), 0)), "keys in order, none missing");
                            long g = Coding.getLong(e.value(), 0);
                            assertEquals(g, e.timestamp());
                            if (first < 0) {
                                first = g;
                            }
                            assertTrue(g <= previous && g >= first - 1, "generations " + first + " then " + g + " at key " + count);
                            previous = g;
                            count++;
                        }
                        assertEquals(KEYS, count);
                    }
                    snapshots++;
                }
            } finally {
                stop.set(true);
                generations.get(60, TimeUnit.SECONDS);
                writer.shutdown();
            }
            assertTrue(snapshots > 0);
        }
    }

    private long tableFiles() throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".sst")).count();
        }
    }
}
