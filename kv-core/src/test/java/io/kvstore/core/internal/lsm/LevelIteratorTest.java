package io.kvstore.core.internal.lsm;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.table.SsTableWriter;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LevelIterator} against a sorted map, over a level of five tables holding the even keys of
 * separate stretches, so that bounds fall inside tables, on their first and last keys, between two
 * tables and beyond both ends.
 */
class LevelIteratorTest {
    /** Keys 2k for k in [first, first + count) of each table; the gaps between stretches hold no key. */
    private static final int[][] STRETCHES = {{0, 40}, {50, 40}, {90, 1}, {100, 60}, {200, 40}};
    private static final int LAST_KEY = 2 * (200 + 40 - 1);

    @TempDir
    Path dir;
    private final TreeMap<byte[], Entry> model = new TreeMap<>(Bytes.ORDER);
    private SsTable[] tables;

    @BeforeEach
    void writeLevel() throws IOException {
        // Surrounded by two tables of other levels, as a version lists them.
        tables = new SsTable[STRETCHES.length + 2];
        tables[0] = write(0, List.of(Entry.value(key(7), new byte[] {7}, 1)));
        for (int t = 0; t < STRETCHES.length; t++) {
            List<Entry> entries = new ArrayList<>();
            for (int k = STRETCHES[t][0]; k < STRETCHES[t][0] + STRETCHES[t][1]; k++) {
                Entry entry = Entry.value(key(2 * k), new byte[] {(byte) t, (byte) k}, 10 + k);
                entries.add(entry);
                model.put(entry.key(), entry);
            }
            tables[t + 1] = write(t + 1, entries);
        }
        tables[tables.length - 1] = write(tables.length - 1, List.of(Entry.value(key(9), new byte[] {9}, 1)));
    }

    @AfterEach
    void releaseTables() throws IOException {
        VersionSet.release(tables);
    }

    @Test
    void everyRangeMatchesTheModel() {
        long seed = Seeds.seed("LevelIteratorTest");
        Random random = new Random(seed);
        List<Integer> bounds = new ArrayList<>();
        bounds.add(null);
        for (int[] stretch : STRETCHES) {
            int first = 2 * stretch[0];
            int last = 2 * (stretch[0] + stretch[1] - 1);
            bounds.addAll(List.of(first - 1, first, first + 1, last - 1, last, last + 1));
        }
        bounds.add(LAST_KEY + 100);
        for (Integer from : bounds) {
            for (Integer to : bounds) {
                assertRange(from, to, "bounds " + from + ", " + to);
            }
        }
        for (int i = 0; i < 2_000; i++) {
            int from = random.nextInt(LAST_KEY + 20) - 10;
            int to = from + random.nextInt(200);
            assertRange(from, to, "seed " + seed + ", bounds " + from + ", " + to);
        }
    }

    @Test
    void aLevelOfOneTableAndAnEmptyStretchOfTablesReadAsTheirEntries() {
        try (LevelIterator one = new LevelIterator(tables, 3, 4, null, null, true)) {
            assertTrue(one.hasNext());
            assertEquals(model.get(key(180)), one.next());
            assertFalse(one.hasNext());
        }
        try (LevelIterator none = new LevelIterator(tables, 3, 3, null, null, true)) {
            assertFalse(none.hasNext());
        }
    }

    @Test
    void nextPastTheEndFailsAndCloseEndsTheRange() {
        try (LevelIterator range = new LevelIterator(tables, 1, 1 + STRETCHES.length, key(2 * 239), null, false)) {
            assertEquals(model.get(key(2 * 239)), range.next());
            assertFalse(range.hasNext());
            assertThrows(NoSuchElementException.class, range::next);
        }
        LevelIterator closed = new LevelIterator(tables, 1, 1 + STRETCHES.length, null, null, true);
        closed.next();
        closed.close();
        assertFalse(closed.hasNext());
        closed.close();
    }

    @Test
    void aVersionRefusesALevelWhoseTablesOverlapOrAreOutOfOrder() throws IOException {
        Memtable active = new Memtable(1, 1 << 20);
        SsTable[] swapped = {tables[2], tables[1]};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Version(active, new Memtable[0], swapped, new int[] {1, 1}, new boolean[2]));
        assertTrue(e.getMessage().contains("level 1 tables"), e.getMessage());
        SsTable overlapping = write(20, List.of(Entry.value(key(2 * 60), new byte[0], 1), Entry.value(key(2 * 120), new byte[0], 1)));
        try {
            SsTable[] level = {tables[2], overlapping};
            assertThrows(IllegalArgumentException.class,
                    () -> new Version(active, new Memtable[0], level, new int[] {2, 2}, new boolean[2]));
            // The same tables at level 0, or at two levels, may overlap.
            new Version(active, new Memtable[0], level, new int[] {0, 0}, new boolean[2]);
            new Version(active, new Memtable[0], level, new int[] {1, 2}, new boolean[2]);
        } finally {
            VersionSet.release(new SsTable[] {overlapping});
        }
    }

    private void assertRange(Integer from, Integer to, String context) {
        byte[] fromKey = from == null ? null : key(from);
        byte[] toKey = to == null ? null : key(to);
        NavigableMap<byte[], Entry> expected = model;
        if (fromKey != null) {
            expected = expected.tailMap(fromKey, true);
        }
        if (toKey != null) {
            if (fromKey != null && Bytes.compare(fromKey, toKey) > 0) {
                expected = new TreeMap<>(Bytes.ORDER);
            } else {
                expected = expected.headMap(toKey, false);
            }
        }
        List<Entry> actual = new ArrayList<>();
        try (CloseableIterator<Entry> range = new LevelIterator(tables, 1, 1 + STRETCHES.length, fromKey, toKey, from != null && from % 2 == 0)) {
            range.forEachRemaining(actual::add);
        }
        assertEquals(new ArrayList<>(expected.values()), actual, context);
    }

    private SsTable write(int number, List<Entry> entries) throws IOException {
        Path path = dir.resolve(number + ".sst");
        try (SsTableWriter writer = new SsTableWriter(path, 256, 10, entries.size())) {
            for (Entry entry : entries) {
                writer.add(entry);
            }
            writer.finish();
        }
        return SsTable.open(path, number);
    }

    /** Big-endian, so that byte order is numeric order; a bound below 0 is 0. */
    private static byte[] key(int k) {
        return ByteBuffer.allocate(4).putInt(Math.max(k, 0)).array();
    }
}
