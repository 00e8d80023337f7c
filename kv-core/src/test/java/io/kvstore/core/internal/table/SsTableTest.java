package io.kvstore.core.internal.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Entry;
import io.kvstore.core.CorruptionException;
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
