package io.kvstore.core.internal.table;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tables in each codec read back exactly, and damage to them is reported, never read as data. */
class CompressedTableTest {
    @TempDir
    Path dir;

    /** Text-like entries (compressible), a few tombstones, empty values and values with an expiry. */
    private static TreeMap<byte[], Entry> entries(int count) {
        Random random = new Random(count);
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        for (int i = 0; i < count; i++) {
            byte[] key = String.format("user:%08d", i).getBytes(StandardCharsets.UTF_8);
            int kind = random.nextInt(20);
            if (kind == 0) {
                entries.put(key, Entry.tombstone(key, i));
            } else if (kind == 1) {
                entries.put(key, Entry.value(key, new byte[0], i));
            } else if (kind == 2) {
                entries.put(key, Entry.value(key, ("expiring " + i).getBytes(StandardCharsets.UTF_8), i, 1_000_000L + i));
            } else {
                String value = "{\"name\":\"user " + i + "\",\"score\":" + random.nextInt(100) + ",\"tags\":[\"a\",\"b\"]}";
                entries.put(key, Entry.value(key, value.repeat(1 + random.nextInt(4)).getBytes(StandardCharsets.UTF_8), i));
            }
        }
        return entries;
    }

    private Path write(String name, TreeMap<byte[], Entry> entries, Compression compression) throws IOException {
        Path path = dir.resolve(name);
        try (SsTableWriter writer = new SsTableWriter(path, 4096, 10, entries.size(), compression)) {
            for (Entry e : entries.values()) {
                writer.add(e);
            }
            writer.finish();
        }
        return path;
    }

    private static List<Entry> scan(SsTable table, byte[] from, byte[] to) {
        List<Entry> all = new ArrayList<>();
        try (CloseableIterator<Entry> it = table.iterator(from, to)) {
            it.forEachRemaining(all::add);
        }
        return all;
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void everyEntryReadsBackInEveryCodec(Compression compression) throws IOException {
        TreeMap<byte[], Entry> entries = entries(3000);
        SsTable table = SsTable.open(write("000001.sst", entries, compression), 1);
        assertEquals(compression.name().toLowerCase(), table.codecName());
        assertEquals(TableFormat.V3, table.formatVersion());
        for (Entry e : entries.values()) {
            assertEquals(e, table.get(e.key(), SsTable.hash(e.key())));
        }
        byte[] absent = "user:00000100x".getBytes(StandardCharsets.UTF_8);
        assertEquals(null, table.get(absent, SsTable.hash(absent)));
        assertEquals(new ArrayList<>(entries.values()), scan(table, null, null));
        byte[] from = entries.keySet().stream().skip(1000).findFirst().orElseThrow();
        byte[] to = entries.keySet().stream().skip(1500).findFirst().orElseThrow();
        assertEquals(new ArrayList<>(entries.subMap(from, to).values()), scan(table, from, to));
    }

    @Test
    void compressedTablesAreSmaller() throws IOException {
        TreeMap<byte[], Entry> entries = entries(3000);
        long none = Files.size(write("none.sst", entries, Compression.NONE));
        long lz4 = Files.size(write("lz4.sst", entries, Compression.LZ4));
        long zstd = Files.size(write("zstd.sst", entries, Compression.ZSTD));
        assertTrue(lz4 < none * 3 / 4, "lz4 " + lz4 + " against " + none);
        assertTrue(zstd < none * 3 / 4, "zstd " + zstd + " against " + none);
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void aFlippedByteInACompressedBlockIsCorruptionWithFileAndOffset(Compression compression) throws IOException {
        TreeMap<byte[], Entry> entries = entries(3000);
        Path path = write("000001.sst", entries, compression);
        SsTable intact = SsTable.open(path, 1);
        // Somewhere inside the second data block: its compressed bytes, not its trailer.
        long secondBlock = firstBlockEnd(intact, entries);
        byte[] inSecondBlock = null;
        for (byte[] key : entries.keySet()) {
            if (blockStart(intact, key) == secondBlock) {
                inSecondBlock = key;
                break;
            }
        }
        byte[] key = inSecondBlock;
        SsTableTest.flipByte(path, secondBlock + 5);
        SsTable table = SsTable.open(path, 1);
        CorruptionException get = assertThrows(CorruptionException.class,
                () -> table.get(key, SsTable.hash(key)));
        assertEquals(path, get.file());
        assertEquals(secondBlock, get.offset());
        assertTrue(get.getMessage().contains("checksum"), get.getMessage());
        UncheckedIOException scan = assertThrows(UncheckedIOException.class, () -> scan(table, null, null));
        assertTrue(scan.getCause() instanceof CorruptionException, scan.toString());
        TableCursor cursor = table.cursor(0);
        CorruptionException compaction = assertThrows(CorruptionException.class, () -> {
            while (cursor.advance()) {
                cursor.timestamp();
            }
        });
        assertEquals(secondBlock, compaction.offset());
        byte[] first = entries.firstKey();
        assertEquals(entries.get(first), table.get(first, SsTable.hash(first)), "other blocks still read");
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void aTruncatedTableFailsToOpen(Compression compression) throws IOException {
        Path path = write("000001.sst", entries(500), compression);
        byte[] bytes = Files.readAllBytes(path);
        for (int cut : new int[] {1, 8, TableFormat.FOOTER_SIZE, bytes.length / 2}) {
            Path truncated = dir.resolve("cut-" + cut + ".sst");
            Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length - cut));
            CorruptionException e = assertThrows(CorruptionException.class, () -> SsTable.open(truncated, 2));
            assertEquals(truncated, e.file());
        }
    }

    @Test
    void anUnknownCodecFailsToOpenNamingIt() throws IOException {
        Path path = write("000001.sst", entries(200), Compression.LZ4);
        byte[] bytes = Files.readAllBytes(path);
        long footerOffset = bytes.length - TableFormat.FOOTER_SIZE;
        BlockHandle meta = BlockHandle.decode(bytes, (int) footerOffset);
        // The codec is the meta block's last field before its checksum; rewrite it and the checksum.
        int codecAt = (int) (meta.offset() + meta.size() - 8);
        Coding.putInt(bytes, codecAt, 7);
        Coding.putInt(bytes, codecAt + 4, Crc32c.of(bytes, (int) meta.offset(), meta.size() - 4));
        Files.write(path, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> SsTable.open(path, 1));
        assertEquals(codecAt, e.offset());
        assertTrue(e.getMessage().contains("unknown block codec 7"), e.getMessage());
    }

    @Test
    void anUnknownFormatVersionFailsToOpenNamingIt() throws IOException {
        Path path = write("000001.sst", entries(200), Compression.NONE);
        byte[] bytes = Files.readAllBytes(path);
        int footer = bytes.length - TableFormat.FOOTER_SIZE;
        Coding.putInt(bytes, footer + 40, 4);
        Coding.putInt(bytes, footer + 44, Crc32c.of(bytes, footer, 44));
        Files.write(path, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> SsTable.open(path, 1));
        assertTrue(e.getMessage().contains("unsupported table format version 4"), e.getMessage());
    }

    /** The entries of {@link #entries}, the first {@code random} of them with values of random bytes. */
    private static TreeMap<byte[], Entry> partlyRandom(int count, int random) {
        TreeMap<byte[], Entry> entries = entries(count);
        Random bytes = new Random(random);
        int i = 0;
        for (byte[] key : entries.keySet()) {
            if (i++ < random) {
                byte[] value = new byte[100 + bytes.nextInt(200)];
                bytes.nextBytes(value);
                entries.put(key, Entry.value(key, value, i));
            }
        }
        return entries;
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void blocksCompressionCannotShrinkAreStoredAsTheyAreReadInPlaceAndNeverCached(Compression compression)
            throws IOException {
        TreeMap<byte[], Entry> entries = partlyRandom(3000, 1500);
        Path path = write("000001.sst", entries, compression);
        BlockCache cache = BlockCache.ofCapacity(64 << 20);
        SsTable table = SsTable.open(path, 1, cache);
        byte[] randomKey = entries.firstKey();
        byte[] textKey = entries.lastKey();
        for (int round = 0; round < 3; round++) {
            assertEquals(entries.get(randomKey), table.get(randomKey, SsTable.hash(randomKey)));
        }
        assertEquals(0, cache.blockCount(), "a block stored as it is is read from the mapping");
        assertEquals(0, cache.properties().misses(), "and counts no miss: the cache would not hold it");
        assertEquals(entries.get(textKey), table.get(textKey, SsTable.hash(textKey)));
        assertEquals(1, cache.blockCount(), "a compressed block is cached");
        for (Entry e : entries.values()) {
            assertEquals(e, table.get(e.key(), SsTable.hash(e.key())));
        }
        assertEquals(new ArrayList<>(entries.values()), scan(table, null, null),
                "cursors cross between both kinds of block");
        TableCursor cursor = table.cursor(0);
        List<byte[]> keys = new ArrayList<>();
        while (cursor.advance()) {
            keys.add(cursor.key());
        }
        assertEquals(entries.size(), keys.size());
        // The random half takes about its uncompressed size (no growth but the trailers), the text half less.
        long none = Files.size(write("none.sst", entries, Compression.NONE));
        long random = Files.size(write("random.sst", partlyRandom(1500, 1500), compression));
        long randomNone = Files.size(write("random-none.sst", partlyRandom(1500, 1500), Compression.NONE));
        assertTrue(random <= randomNone * 1.01,
                "stored blocks add their trailers only: " + random + " against " + randomNone);
        assertTrue(Files.size(path) < none, Files.size(path) + " against " + none);
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void blocksAfterOnesThatDidNotCompressAreStoredWithoutTryingUntilTheBackoffTriesAgain(Compression compression)
            throws IOException {
        TreeMap<byte[], Entry> entries = partlyRandom(3000, 200);
        Path path = write("000001.sst", entries, compression);
        SsTable table = SsTable.open(path, 1);
        List<byte[]> keys = new ArrayList<>(entries.keySet());
        BlockHandle lastRandom = table.blockHandleOf(keys.get(199));
        List<Boolean> textBlocksStored = new ArrayList<>();
        BlockHandle previous = lastRandom;
        for (byte[] key : keys.subList(200, keys.size())) {
            BlockHandle handle = table.blockHandleOf(key);
            if (handle.offset() != previous.offset()) {
                textBlocksStored.add(isStored(path, handle));
                previous = handle;
            }
        }
        int stored = textBlocksStored.indexOf(false);
        assertTrue(stored >= 1 && stored <= CompressionBackoff.MAX_SKIPPED,
                "text blocks right after the random ones are stored untried, then tried: " + textBlocksStored);
        assertEquals(-1, textBlocksStored.subList(stored, textBlocksStored.size()).indexOf(true),
                "once one compresses every later text block is tried and compresses: " + textBlocksStored);
        for (Entry e : entries.values()) {
            assertEquals(e, table.get(e.key(), SsTable.hash(e.key())));
        }
    }

    /** Whether the data block at {@code handle} is stored as it is (its trailer's size has {@link TableFormat#STORED}). */
    private static boolean isStored(Path path, BlockHandle handle) throws IOException {
        try (FileChannel channel = FileChannel.open(path)) {
            ByteBuffer field = ByteBuffer.allocate(4);
            channel.read(field, handle.offset() + handle.size() - TableFormat.COMPRESSED_TRAILER);
            return (Coding.getInt(field.array(), 0) & TableFormat.STORED) != 0;
        }
    }

    @Test
    void aFlippedByteInAStoredBlockIsCorruptionWithFileAndOffset() throws IOException {
        TreeMap<byte[], Entry> entries = partlyRandom(1000, 1000);
        Path path = write("000001.sst", entries, Compression.LZ4);
        byte[] key = entries.firstKey();
        long block = blockStart(SsTable.open(path, 1), key);
        SsTableTest.flipByte(path, block + 40);
        SsTable table = SsTable.open(path, 1);
        CorruptionException e = assertThrows(CorruptionException.class, () -> table.get(key, SsTable.hash(key)));
        assertEquals(path, e.file());
        assertEquals(block, e.offset());
        assertTrue(e.getMessage().contains("checksum"), e.getMessage());
    }

    @Test
    void aBlockMarkedStoredInAVersion2TableIsCorruption() throws IOException {
        TreeMap<byte[], Entry> entries = partlyRandom(500, 500);
        Path path = write("000001.sst", entries, Compression.LZ4);
        byte[] bytes = Files.readAllBytes(path);
        int footer = bytes.length - TableFormat.FOOTER_SIZE;
        Coding.putInt(bytes, footer + 40, TableFormat.V2);
        Coding.putInt(bytes, footer + 44, Crc32c.of(bytes, footer, 44));
        Files.write(path, bytes);
        SsTable table = SsTable.open(path, 1);
        byte[] key = entries.firstKey();
        CorruptionException e = assertThrows(CorruptionException.class, () -> table.get(key, SsTable.hash(key)));
        assertEquals(blockStart(table, key), e.offset());
        assertTrue(e.getMessage().contains("marked stored as it is") && e.getMessage().contains("version 2"),
                e.getMessage());
    }

    /** Offset of the block after the first: the index's first handle ends where the second block starts. */
    private static long firstBlockEnd(SsTable table, TreeMap<byte[], Entry> entries) throws IOException {
        return blockStart(table, entries.firstKey()) + table.blockHandleOf(entries.firstKey()).size();
    }

    private static long blockStart(SsTable table, byte[] key) throws IOException {
        return table.blockHandleOf(key).offset();
    }
}
