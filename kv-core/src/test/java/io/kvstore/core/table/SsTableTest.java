package io.kvstore.core.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.CorruptionException;
import io.kvstore.core.Entry;
import io.kvstore.core.util.XxHash64;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SsTableTest {
    private static final int KEYS = 20_000;

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
    }

    private Path write(String name, int bloomBitsPerKey) throws IOException {
        Path file = dir.resolve(name);
        try (SsTableWriter writer = new SsTableWriter(file, 4096, bloomBitsPerKey, KEYS)) {
            for (int i = 0; i < KEYS; i += 2) { // even keys only, so odd ones are absent but in range
                writer.add(i % 10 == 0 ? Entry.tombstone(key(i), i) : Entry.value(key(i), ("v" + i).getBytes(StandardCharsets.UTF_8), i));
            }
            writer.finish();
        }
        return file;
    }

    @Test
    void everyEntryReadsBackByGetAndInOrderByIteration() throws IOException {
        SsTable table = SsTable.open(write("t.sst", 10), 1);
        assertEquals(KEYS / 2, table.entryCount());
        assertEquals(KEYS - 2, table.maxTimestamp());
        for (int i = 0; i < KEYS; i++) {
            Entry e = table.get(key(i), XxHash64.hash(key(i)));
            if (i % 2 == 1) {
                assertNull(e, "odd keys were never written");
            } else if (i % 10 == 0) {
                assertTrue(e.isTombstone());
                assertEquals(i, e.timestamp());
            } else {
                assertArrayEquals(("v" + i).getBytes(StandardCharsets.UTF_8), e.value());
            }
        }
        Iterator<Entry> it = table.iterator(key(101), key(201));
        for (int i = 102; i < 201; i += 2) {
            assertArrayEquals(key(i), it.next().key());
        }
        assertTrue(!it.hasNext());
    }

    @Test
    void bloomFilterRejectsAlmostAllAbsentKeys() throws IOException {
        Path file = write("bloom.sst", 10);
        SsTable table = SsTable.open(file, 1);
        int maybe = 0;
        int probes = 100_000;
        for (int i = 0; i < probes; i++) {
            byte[] absent = ("absent-" + i).getBytes(StandardCharsets.UTF_8);
            if (table.get(absent, XxHash64.hash(absent)) != null) {
                maybe++;
            }
        }
        assertEquals(0, maybe, "absent keys must never be found");
        // The false-positive rate itself, probed on the filter alone.
        ByteBuffer filter = ByteBuffer.wrap(filterBytes(KEYS / 2, 10));
        int falsePositives = 0;
        for (int i = 0; i < probes; i++) {
            if (BloomFilter.mightContain(filter, 0, XxHash64.hash(("absent-" + i).getBytes(StandardCharsets.UTF_8)))) {
                falsePositives++;
            }
        }
        double rate = falsePositives / (double) probes;
        assertTrue(rate < 0.02, "false-positive rate at 10 bits per key: " + rate);
    }

    private static byte[] filterBytes(int keys, int bitsPerKey) {
        int blocks = (keys * bitsPerKey + 511) / 512;
        long[] words = new long[blocks * BloomFilter.WORDS_PER_BLOCK];
        int hashes = (int) Math.round(bitsPerKey * 0.69);
        for (int i = 0; i < keys; i++) {
            BloomFilter.set(words, blocks, hashes, XxHash64.hash(key(i)));
        }
        return BloomFilter.serialize(words, blocks, hashes);
    }

    @Test
    void aFlippedByteInADataBlockIsDetectedWithFileAndOffset() throws IOException {
        Path file = write("flip.sst", 10);
        byte[] bytes = Files.readAllBytes(file);
        bytes[5000] ^= 0x01; // inside the second data block
        Files.write(file, bytes);
        SsTable table = SsTable.open(file, 1); // footer, index and filter are intact
        CorruptionException e = assertThrows(CorruptionException.class, () -> {
            for (int i = 0; i < KEYS; i += 2) {
                table.get(key(i), XxHash64.hash(key(i)));
            }
        });
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("checksum mismatch"), e.getMessage());
        assertThrows(UncheckedIOException.class, () -> table.iterator(null, null).forEachRemaining(x -> { }));
    }

    @Test
    void aDamagedFooterIndexOrFilterFailsAtOpen() throws IOException {
        Path file = write("damaged.sst", 10);
        byte[] good = Files.readAllBytes(file);
        for (int offset : new int[] {good.length - 1, good.length - 30, good.length - 100, good.length - 2000}) {
            byte[] bad = good.clone();
            bad[offset] ^= 0x10;
            Path damaged = dir.resolve("damaged-" + offset + ".sst");
            Files.write(damaged, bad);
            CorruptionException e = assertThrows(CorruptionException.class, () -> SsTable.open(damaged, 2),
                    "flip at " + offset);
            assertTrue(e.getMessage().contains(damaged.toString()), e.getMessage());
        }
        Path tiny = dir.resolve("tiny.sst");
        Files.write(tiny, new byte[10]);
        assertThrows(CorruptionException.class, () -> SsTable.open(tiny, 3));
    }

    @Test
    void keysMustArriveInStrictOrder() throws IOException {
        try (SsTableWriter writer = new SsTableWriter(dir.resolve("order.sst"), 4096, 10, 10)) {
            writer.add(Entry.value(key(2), new byte[0], 1));
            assertThrows(IllegalArgumentException.class, () -> writer.add(Entry.value(key(1), new byte[0], 1)));
            assertThrows(IllegalArgumentException.class, () -> writer.add(Entry.value(key(2), new byte[0], 1)));
        }
        assertTrue(!Files.exists(dir.resolve("order.sst")), "an unfinished table is deleted");
    }
}
