package io.kvstore.core.internal.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A cursor reads what an iterator reads, and a table copied through cursors is the same file, byte for byte. */
class TableCursorTest {
    @TempDir
    Path dir;

    /** Keys of 1 to 40 bytes (many sharing their first 8), tombstones, empty values, values with an expiry. */
    private static TreeMap<byte[], Entry> entries(long seed, int count) {
        SplittableRandom random = new SplittableRandom(seed);
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        while (entries.size() < count) {
            byte[] key = new byte[1 + random.nextInt(40)];
            random.nextBytes(key);
            if (key.length > 8 && random.nextBoolean()) {
                System.arraycopy("prefix:x".getBytes(), 0, key, 0, 8);
            }
            long timestamp = random.nextLong(1, 1_000_000);
            int kind = random.nextInt(10);
            byte[] value = new byte[kind == 1 ? 0 : random.nextInt(300)];
            random.nextBytes(value);
            entries.put(key, kind == 0 ? Entry.tombstone(key, timestamp)
                    : kind == 2 ? Entry.value(key, value, timestamp, random.nextLong(1, Long.MAX_VALUE)) : Entry.value(key, value, timestamp));
        }
        return entries;
    }

    private Path write(String name, Iterable<Entry> entries, int count, Compression compression) throws IOException {
        Path path = dir.resolve(name);
        try (SsTableWriter writer = new SsTableWriter(path, 1024, 10, count, compression)) {
            for (Entry e : entries) {
                writer.add(e);
            }
            writer.finish();
        }
        return path;
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void aTableCopiedThroughACursorIsTheSameFileAndReadsAsItsIterator(Compression compression) throws IOException {
        long seed = System.nanoTime();
        System.out.println("TableCursorTest seed " + seed);
        TreeMap<byte[], Entry> entries = entries(seed, 2000);
        SsTable source = SsTable.open(write("000001.sst", entries.values(), entries.size(), compression), 1);
        Path copy = dir.resolve("000002.sst");
        List<Entry> read = new ArrayList<>();
        try (SsTableWriter writer = new SsTableWriter(copy, 1024, 10, entries.size(), compression)) {
            TableCursor cursor = source.cursor(0);
            while (cursor.advance()) {
                Entry entry = cursor.entry();
                read.add(entry);
                assertEquals(entry.timestamp(), cursor.timestamp());
                assertEquals(entry.isTombstone(), cursor.isTombstone());
                assertEquals(entry.expiresAtMillis(), cursor.expiresAtMillis());
                assertArrayEquals(entry.key(), cursor.key());
                writer.add(cursor);
            }
            assertFalse(cursor.advance(), "stays at the end");
            writer.finish();
        }
        assertEquals(new ArrayList<>(entries.values()), read, "seed " + seed);
        assertEquals(-1, Files.mismatch(source.path(), copy), "seed " + seed);
        try (CloseableIterator<Entry> it = SsTable.open(copy, 2).iterator(null, null)) {
            for (Entry expected : entries.values()) {
                assertEquals(expected, it.next());
            }
            assertFalse(it.hasNext());
        }
    }

    @Test
    void versionsOfOneKeyCompareAsEntriesDo() throws IOException {
        byte[] key = {'k'};
        byte[] ab = {'a', 'b'};
        Entry[] versions = {
            Entry.tombstone(key, 5), Entry.value(key, ab, 5), Entry.value(key, new byte[] {'a'}, 5),
            Entry.value(key, new byte[0], 5), Entry.value(key, ab, 5, 100), Entry.value(key, ab, 5, 200),
            Entry.value(key, ab, 4), Entry.value(key, ab, 6), Entry.tombstone(key, 6),
            Entry.value(key, new byte[] {(byte) 0xFF}, 5),
        };
        TableCursor[] cursors = new TableCursor[versions.length];
        for (int i = 0; i < versions.length; i++) {
            SsTable table = SsTable.open(write(String.format("%06d.sst", i + 1), List.of(versions[i]), 1,
                    Compression.NONE), i + 1);
            cursors[i] = table.cursor(0);
            assertTrue(cursors[i].advance());
        }
        for (int a = 0; a < versions.length; a++) {
            for (int b = 0; b < versions.length; b++) {
                assertEquals(Integer.signum(Entry.compareVersions(versions[a], versions[b])),
                        Integer.signum(cursors[a].compareVersion(cursors[b])), versions[a] + " vs " + versions[b]);
                assertEquals(0, cursors[a].compareKey(cursors[b]));
            }
        }
    }

    @Test
    void keysOutOfOrderAreRefusedWithBothKeys() throws IOException {
        TreeMap<byte[], Entry> entries = entries(7, 10);
        SsTable source = SsTable.open(write("000001.sst", entries.values(), entries.size(), Compression.LZ4), 1);
        try (SsTableWriter writer = new SsTableWriter(dir.resolve("000002.sst"), 1024, 10, 10, Compression.LZ4)) {
            writer.add(entries.lastEntry().getValue());
            TableCursor cursor = source.cursor(0);
            assertTrue(cursor.advance());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> writer.add(cursor));
            assertTrue(e.getMessage().contains("out of order"), e.getMessage());
        }
    }
}
