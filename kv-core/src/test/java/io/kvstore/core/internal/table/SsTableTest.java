package io.kvstore.core.internal.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SsTableTest {
    @TempDir
    Path dir;

    private static TreeMap<byte[], Entry> randomEntries(Random random, int count) {
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        while (entries.size() < count) {
            byte[] key = new byte[1 + random.nextInt(24)];
            random.nextBytes(key);
            int kind = random.nextInt(10);
            Entry entry;
            if (kind == 0) {
                entry = Entry.tombstone(key, random.nextLong());
            } else if (kind == 1) {
                entry = Entry.value(key, new byte[0], random.nextLong());
            } else {
                byte[] value = new byte[random.nextInt(kind == 2 ? 3000 : 100)];
                random.nextBytes(value);
                entry = Entry.value(key, value, random.nextLong());
            }
            entries.put(key, entry);
        }
        return entries;
    }

    private Path write(TreeMap<byte[], Entry> entries, int blockSize, int bitsPerKey) throws IOException {
        Path path = dir.resolve("000001.sst");
        try (SsTableWriter writer = new SsTableWriter(path, blockSize, bitsPerKey, entries.size())) {
            for (Entry e : entries.values()) {
                writer.add(e);
            }
            writer.finish();
        }
        return path;
    }

    @Test
    void everyEntryReadsBackByGetAndByIteration() throws IOException {
        long seed = Seeds.seed("SsTableTest");
        Random random = new Random(seed);
        TreeMap<byte[], Entry> entries = randomEntries(random, 5000);
        SsTable table = SsTable.open(write(entries, 512, 10), 1);
        assertEquals(5000, table.entryCount());
        for (Entry e : entries.values()) {
            assertEquals(e, table.get(e.key(), SsTable.hash(e.key())), "seed " + seed);
        }
        List<Entry> all = new ArrayList<>();
        try (CloseableIterator<Entry> it = table.iterator(null, null)) {
            it.forEachRemaining(all::add);
        }
        assertEquals(new ArrayList<>(entries.values()), all);

        byte[][] keys = entries.keySet().toArray(new byte[0][]);
        for (int i = 0; i < 50; i++) {
            int a = random.nextInt(keys.length);
            int b = a + random.nextInt(keys.length - a);
            List<Entry> range = new ArrayList<>();
            try (CloseableIterator<Entry> it = table.iterator(keys[a], keys[b])) {
                it.forEachRemaining(range::add);
            }
            assertEquals(new ArrayList<>(entries.subMap(keys[a], keys[b]).values()), range, "seed " + seed);
        }
    }

    @Test
    void blocksAreReadAcrossMappingWindows() throws IOException {
        // Windows of 4 KiB over a table of about 1 MiB stand in for 1 GiB windows over a file past 2 GiB.
        TreeMap<byte[], Entry> entries = randomEntries(new Random(4), 3000);
        SsTable table = SsTable.open(write(entries, 700, 10), 1, 12);
        for (Entry e : entries.values()) {
            assertEquals(e, table.get(e.key(), SsTable.hash(e.key())));
        }
        List<Entry> all = new ArrayList<>();
        try (CloseableIterator<Entry> it = table.iterator(null, null)) {
            it.forEachRemaining(all::add);
        }
        assertEquals(new ArrayList<>(entries.values()), all);
    }

    @Test
    void absentKeysAreNotFound() throws IOException {
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        for (int i = 0; i < 1000; i += 2) {
            byte[] key = {(byte) (i >>> 8), (byte) i};
            entries.put(key, Entry.value(key, new byte[] {1}, i));
        }
        SsTable table = SsTable.open(write(entries, 256, 0), 1);
        for (int i = 1; i < 1000; i += 2) {
            byte[] key = {(byte) (i >>> 8), (byte) i};
            assertNull(table.get(key, SsTable.hash(key)));
        }
        assertNull(table.get(new byte[] {(byte) 0xFF, (byte) 0xFF, 0}, 0));
        assertNull(table.get(new byte[0], 0));
    }

    @Test
    void keysWithZeroAndFfBytesOrderAsUnsigned() throws IOException {
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        byte[][] keys = {{0}, {0, 0}, {0x7F}, {(byte) 0x80}, {(byte) 0xFF}, {(byte) 0xFF, 0}, {(byte) 0xFF, (byte) 0xFF}};
        for (byte[] k : keys) {
            entries.put(k, Entry.value(k, k, 1));
        }
        SsTable table = SsTable.open(write(entries, 256, 10), 1);
        List<Entry> all = new ArrayList<>();
        try (CloseableIterator<Entry> it = table.iterator(new byte[] {0x7F}, new byte[] {(byte) 0xFF, 0})) {
            it.forEachRemaining(all::add);
        }
        assertEquals(3, all.size());
        assertArrayEquals(new byte[] {(byte) 0xFF}, all.get(2).key());
    }

    @Test
    void bloomFilterFalsePositiveRateIsAboutOnePercentAtTenBitsPerKey() throws IOException {
        int keys = 100_000;
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        for (int i = 0; i < keys; i++) {
            byte[] key = ("present-" + i).getBytes();
            entries.put(key, Entry.value(key, new byte[0], 1));
        }
        SsTable table = SsTable.open(write(entries, 4096, 10), 1);
        BloomFilter bloom = bloomOf(table);
        for (byte[] key : entries.keySet()) {
            assertTrue(bloom.mightContain(SsTable.hash(key)), "no false negatives");
        }
        int falsePositives = 0;
        int probes = 200_000;
        for (int i = 0; i < probes; i++) {
            if (bloom.mightContain(SsTable.hash(("absent-" + i).getBytes()))) {
                falsePositives++;
            }
        }
        double rate = falsePositives / (double) probes;
        System.out.printf("Bloom false-positive rate at 10 bits/key: %.4f%n", rate);
        assertTrue(rate < 0.02, "false-positive rate " + rate);
        assertTrue(rate > 0.001, "suspiciously low false-positive rate " + rate);
    }

    private static BloomFilter bloomOf(SsTable table) {
        try {
            var field = SsTable.class.getDeclaredField("bloom");
            field.setAccessible(true);
            return (BloomFilter) field.get(table);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void flippedByteInADataBlockIsDetectedAndNamesTheFile() throws IOException {
        TreeMap<byte[], Entry> entries = randomEntries(new Random(1), 2000);
        Path path = write(entries, 1024, 10);
        // Data blocks come first; flip one byte in the first block's entries.
        flipByte(path, 100);
        SsTable table = SsTable.open(path, 1);
        UncheckedIOException scan = assertThrows(UncheckedIOException.class, () -> {
            try (CloseableIterator<Entry> it = table.iterator(null, null)) {
                it.forEachRemaining(e -> { });
            }
        });
        assertTrue(scan.getCause() instanceof CorruptionException);
        assertTrue(scan.getCause().getMessage().contains(path.toString()), scan.getCause().getMessage());
        byte[] firstKey = entries.firstKey();
        CorruptionException get = assertThrows(CorruptionException.class, () -> table.get(firstKey, SsTable.hash(firstKey)));
        assertEquals(path, get.file());
        assertEquals(0, get.offset());
    }

    @Test
    void flippedByteInTheIndexOrFooterFailsTheOpen() throws IOException {
        TreeMap<byte[], Entry> entries = randomEntries(new Random(2), 500);
        Path path = write(entries, 1024, 10);
        long size = Files.size(path);
        for (long at : new long[] {size - 1, size - 20, size - TableFormat.FOOTER_SIZE - 10}) {
            Path copy = dir.resolve("copy-" + at + ".sst");
            Files.copy(path, copy);
            flipByte(copy, at);
            CorruptionException e = assertThrows(CorruptionException.class, () -> SsTable.open(copy, 2));
            assertTrue(e.getMessage().contains(copy.toString()));
        }
        Path truncated = dir.resolve("truncated.sst");
        Files.write(truncated, new byte[10]);
        assertThrows(CorruptionException.class, () -> SsTable.open(truncated, 3));
    }

    @Test
    void aFooterHandleWhoseEndWouldOverflowIsCorruption() throws IOException {
        Path path = write(randomEntries(new Random(4), 200), 1024, 10);
        byte[] bytes = Files.readAllBytes(path);
        int footer = bytes.length - TableFormat.FOOTER_SIZE;
        // The index handle: an offset that a positive size carries past Long.MAX_VALUE.
        Coding.putLong(bytes, footer + 12, Long.MAX_VALUE - 10);
        Coding.putInt(bytes, footer + 20, 100);
        Coding.putInt(bytes, footer + 44, Crc32c.of(bytes, footer, 44));
        Files.write(path, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> SsTable.open(path, 1));
        assertTrue(e.getMessage().contains("footer points outside the file"), e.getMessage());
    }

    /** How an index entry is rewritten: its position in the file and the file's bytes. */
    private interface IndexEntryEdit {
        void apply(byte[] bytes, int entry);
    }

    /**
     * Applies {@code edit} to index entry {@code block} of the table at {@code path} and seals the index
     * with a valid checksum again, as a writer that got it wrong would have; returns the index's offset.
     */
    private static long editIndexEntry(Path path, int block, IndexEntryEdit edit) throws IOException {
        byte[] bytes = Files.readAllBytes(path);
        int footer = bytes.length - TableFormat.FOOTER_SIZE;
        int index = (int) Coding.getLong(bytes, footer + 12);
        int size = Coding.getInt(bytes, footer + 20);
        int count = Coding.getInt(bytes, index + size - TableFormat.BLOCK_TRAILER);
        int offsets = index + size - TableFormat.BLOCK_TRAILER - 4 * count;
        edit.apply(bytes, index + Coding.getInt(bytes, offsets + 4 * block));
        Coding.putInt(bytes, index + size - 4, Crc32c.of(bytes, index, size - 4));
        Files.write(path, bytes);
        return index;
    }

    /** Position of the block handle in the index entry at {@code entry}. */
    private static int handleOf(byte[] bytes, int entry) {
        return entry + TableFormat.ENTRY_HEADER + Coding.getInt(bytes, entry);
    }

    @Test
    void anIndexWithAValidChecksumButAHandleOutsideTheDataIsCorruptionNamingTheEntry() throws IOException {
        TreeMap<byte[], Entry> entries = randomEntries(new Random(5), 500);
        Path original = write(entries, 1024, 10);
        Path copy = dir.resolve("copy.sst");
        List<IndexEntryEdit> edits = List.of(
                (bytes, entry) -> Coding.putLong(bytes, handleOf(bytes, entry), -1),
                (bytes, entry) -> Coding.putLong(bytes, handleOf(bytes, entry), Long.MAX_VALUE - 4),
                (bytes, entry) -> Coding.putInt(bytes, handleOf(bytes, entry) + 8, Integer.MAX_VALUE),
                (bytes, entry) -> Coding.putInt(bytes, handleOf(bytes, entry) + 8, 3),
                (bytes, entry) -> Coding.putLong(bytes, handleOf(bytes, entry), 0), // overlaps block 0
                (bytes, entry) -> Coding.putLong(bytes, handleOf(bytes, entry), bytes.length - TableFormat.FOOTER_SIZE),
                (bytes, entry) -> Coding.putInt(bytes, entry + 4, 11), // a value that is not a handle
                (bytes, entry) -> Coding.putInt(bytes, entry, 1 << 30)); // a key running off the index
        for (int i = 0; i < edits.size(); i++) {
            Files.copy(original, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            long index = editIndexEntry(copy, 1, edits.get(i));
            CorruptionException e = assertThrows(CorruptionException.class, () -> SsTable.open(copy, 2), "edit " + i);
            assertEquals(copy, e.file());
            assertEquals(index, e.offset(), "edit " + i);
            assertTrue(e.getMessage().contains("index entry 1"), "edit " + i + ": " + e.getMessage());
        }
        Files.copy(original, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        editIndexEntry(copy, 1, (bytes, entry) -> { });
        SsTable table = SsTable.open(copy, 3);
        byte[] key = entries.lastKey();
        assertArrayEquals(key, table.get(key, SsTable.hash(key)).key(), "an index resealed unchanged opens");
    }

    @Test
    void entryLargerThanABlockGetsABlockOfItsOwn() throws IOException {
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        byte[] big = new byte[4 << 20];
        new Random(3).nextBytes(big);
        entries.put(new byte[] {1}, Entry.value(new byte[] {1}, new byte[] {1}, 1));
        entries.put(new byte[] {2}, Entry.value(new byte[] {2}, big, 2));
        entries.put(new byte[] {3}, Entry.tombstone(new byte[] {3}, 3));
        SsTable table = SsTable.open(write(entries, 4096, 10), 1);
        assertArrayEquals(big, table.get(new byte[] {2}, SsTable.hash(new byte[] {2})).value());
        assertTrue(table.get(new byte[] {3}, SsTable.hash(new byte[] {3})).isTombstone());
    }

    @Test
    void writerRejectsKeysOutOfOrder() throws IOException {
        try (SsTableWriter writer = new SsTableWriter(dir.resolve("x.sst"), 4096, 10, 2)) {
            writer.add(Entry.value(new byte[] {2}, new byte[0], 1));
            assertThrows(IllegalArgumentException.class, () -> writer.add(Entry.value(new byte[] {1}, new byte[0], 1)));
            assertThrows(IllegalArgumentException.class, () -> writer.add(Entry.value(new byte[] {2}, new byte[0], 1)));
        }
        assertFalse(Files.exists(dir.resolve("x.sst")), "an unfinished table is deleted");
    }

    static void flipByte(Path file, long at) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at);
            channel.write(ByteBuffer.wrap(new byte[] {(byte) (one.get(0) ^ 0x01)}), at);
        }
    }
}
