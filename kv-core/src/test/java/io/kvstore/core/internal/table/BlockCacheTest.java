package io.kvstore.core.internal.table;

import io.kvstore.core.BlockCacheProperties;
import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.Entry;
import io.kvstore.core.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compressed tables keep their decompressed blocks in a bounded, shared cache and drop them on release. */
class BlockCacheTest {
    private static final int BLOCK_SIZE = 4096;

    @TempDir
    Path dir;

    private static TreeMap<byte[], Entry> entries(int count) {
        TreeMap<byte[], Entry> entries = new TreeMap<>(Bytes.ORDER);
        for (int i = 0; i < count; i++) {
            byte[] key = String.format("user:%08d", i).getBytes(StandardCharsets.UTF_8);
            String value = "{\"name\":\"user " + i + "\",\"score\":" + (i % 97) + ",\"tags\":[\"a\",\"b\"]}";
            entries.put(key, Entry.value(key, value.getBytes(StandardCharsets.UTF_8), i));
        }
        return entries;
    }

    private SsTable open(String name, long number, TreeMap<byte[], Entry> entries, Compression compression,
                         BlockCache cache) throws IOException {
        Path path = dir.resolve(name);
        try (SsTableWriter writer = new SsTableWriter(path, BLOCK_SIZE, 10, entries.size(), compression)) {
            for (Entry e : entries.values()) {
                writer.add(e);
            }
            writer.finish();
        }
        return SsTable.open(path, number, cache);
    }

    private static Entry get(SsTable table, byte[] key) throws IOException {
        return table.get(key, SsTable.hash(key));
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void aBlockReadAgainComesFromTheCache(Compression compression) throws IOException {
        BlockCache cache = BlockCache.ofCapacity(1 << 20);
        TreeMap<byte[], Entry> entries = entries(2000);
        SsTable table = open("000001.sst", 1, entries, compression, cache);
        byte[] first = entries.firstKey();
        assertEquals(entries.get(first), get(table, first));
        assertEquals(1, cache.blockCount());
        byte[] second = entries.higherKey(first);
        assertEquals(table.blockHandleOf(first), table.blockHandleOf(second), "both keys in the first block");
        assertEquals(entries.get(second), get(table, second));
        assertEquals(1, cache.blockCount());
        // Scans share the cache with point reads.
        try (CloseableIterator<Entry> it = table.iterator(null, null)) {
            int n = 0;
            while (it.hasNext()) {
                Entry e = it.next();
                assertEquals(entries.get(e.key()), e);
                n++;
            }
            assertEquals(entries.size(), n);
        }
        assertTrue(cache.blockCount() > 1, "blocks cached by the scan: " + cache.blockCount());
    }

    @Test
    void blocksOfUncompressedTablesAreReadInPlaceAndNeverCached() throws IOException {
        BlockCache cache = BlockCache.ofCapacity(1 << 20);
        TreeMap<byte[], Entry> entries = entries(2000);
        SsTable table = open("000001.sst", 1, entries, Compression.NONE, cache);
        for (byte[] key : entries.keySet()) {
            assertEquals(entries.get(key), get(table, key));
        }
        assertEquals(0, cache.blockCount());
        assertEquals(0, cache.weightBytes());
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void theCacheNeverHoldsMoreThanItsBound(Compression compression) throws IOException {
        long capacity = 5L * (BLOCK_SIZE + BlockCache.ENTRY_OVERHEAD);
        BlockCache cache = BlockCache.ofCapacity(capacity);
        TreeMap<byte[], Entry> entries = entries(5000);
        SsTable table = open("000001.sst", 1, entries, compression, cache);
        for (int round = 0; round < 2; round++) {
            for (byte[] key : entries.keySet()) {
                assertEquals(entries.get(key), get(table, key));
                assertTrue(cache.weightBytes() <= capacity, cache.weightBytes() + " > " + capacity);
            }
        }
        assertTrue(cache.blockCount() > 0 && cache.blockCount() <= 5, "blocks cached: " + cache.blockCount());
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void aBlockHeavierThanHalfTheCacheIsReadButNotCachedSoItPushesNothingOut(Compression compression)
            throws IOException {
        BlockCache cache = BlockCache.ofCapacity(8L * (BLOCK_SIZE + BlockCache.ENTRY_OVERHEAD));
        TreeMap<byte[], Entry> small = entries(5000);
        SsTable table = open("000001.sst", 1, small, compression, cache);
        List<byte[]> keys = new ArrayList<>(small.keySet());
        for (int i = 0; i < 3; i++) {
            byte[] key = keys.get(i * 500);
            assertEquals(small.get(key), get(table, key));
        }
        assertEquals(3, cache.blockCount());
        // One entry whose value alone (compressible, so its block is compressed) weighs more than half the cache.
        byte[] bigKey = "big".getBytes(StandardCharsets.UTF_8);
        byte[] bigValue = "0123456789abcdef".repeat(6 * BLOCK_SIZE / 16).getBytes(StandardCharsets.UTF_8);
        TreeMap<byte[], Entry> big = new TreeMap<>(Bytes.ORDER);
        big.put(bigKey, Entry.value(bigKey, bigValue, 1));
        SsTable bigTable = open("000002.sst", 2, big, compression, cache);
        long misses = cache.properties().misses();
        for (int read = 0; read < 2; read++) {
            assertEquals(big.get(bigKey), get(bigTable, bigKey));
        }
        assertEquals(misses + 2, cache.properties().misses(), "decompressed on each read, never kept");
        assertEquals(3, cache.blockCount(), "the blocks read before are all still cached");
        long hits = cache.properties().hits();
        for (int i = 0; i < 3; i++) {
            byte[] key = keys.get(i * 500);
            assertEquals(small.get(key), get(table, key));
        }
        assertEquals(hits + 3, cache.properties().hits());
    }

    @Test
    void aBlockReadAgainSurvivesTheEvictionThatTakesABlockReadOnce() throws IOException {
        // Room for four blocks (a block may end a little past or before BLOCK_SIZE), not five.
        BlockCache cache = BlockCache.ofCapacity(4L * (BLOCK_SIZE + BlockCache.ENTRY_OVERHEAD) + BLOCK_SIZE / 2);
        TreeMap<byte[], Entry> entries = entries(5000);
        SsTable table = open("000001.sst", 1, entries, Compression.LZ4, cache);
        List<byte[]> firstKeyOfBlock = new ArrayList<>();
        BlockHandle last = null;
        for (byte[] key : entries.keySet()) {
            BlockHandle handle = table.blockHandleOf(key);
            if (!handle.equals(last)) {
                firstKeyOfBlock.add(key);
                last = handle;
            }
        }
        assertTrue(firstKeyOfBlock.size() > 5, "blocks: " + firstKeyOfBlock.size());
        for (int block = 0; block < 4; block++) {
            get(table, firstKeyOfBlock.get(block));
        }
        assertEquals(4, cache.blockCount(), "four blocks fit");
        get(table, firstKeyOfBlock.get(0));
        assertEquals(new BlockCacheProperties(1, 4, 0, cache.weightBytes(), cache.capacityBytes()), cache.properties());

        get(table, firstKeyOfBlock.get(4));
        assertEquals(1, cache.properties().evictions(), "a fifth block pushes one out");
        assertEquals(4, cache.blockCount());
        get(table, firstKeyOfBlock.get(0));
        assertEquals(2, cache.properties().hits(), "the block read twice got a second chance");
        get(table, firstKeyOfBlock.get(1));
        assertEquals(6, cache.properties().misses(), "the oldest block read once was the one dropped");
    }

    @Test
    void aZeroCapacityCachesNothingAndANegativeOneIsRefused() throws IOException {
        BlockCache cache = BlockCache.ofCapacity(0);
        TreeMap<byte[], Entry> entries = entries(2000);
        SsTable table = open("000001.sst", 1, entries, Compression.LZ4, cache);
        for (byte[] key : entries.keySet()) {
            assertEquals(entries.get(key), get(table, key));
        }
        assertEquals(0, cache.blockCount());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BlockCache.ofCapacity(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void aCorruptBlockIsReportedWithFileAndOffsetEveryTimeAndNeverCached(Compression compression) throws IOException {
        BlockCache cache = BlockCache.ofCapacity(1 << 20);
        TreeMap<byte[], Entry> entries = entries(2000);
        Path path = dir.resolve("000001.sst");
        SsTable intact = open("000001.sst", 1, entries, compression, BlockCache.disabled());
        byte[] first = entries.firstKey();
        long secondBlock = intact.blockHandleOf(first).offset() + intact.blockHandleOf(first).size();
        byte[] inSecondBlock = null;
        for (byte[] key : entries.keySet()) {
            if (intact.blockHandleOf(key).offset() == secondBlock) {
                inSecondBlock = key;
                break;
            }
        }
        byte[] key = inSecondBlock;
        SsTableTest.flipByte(path, secondBlock + 5);
        SsTable table = SsTable.open(path, 1, cache);
        for (int attempt = 0; attempt < 2; attempt++) {
            CorruptionException e = assertThrows(CorruptionException.class, () -> get(table, key));
            assertEquals(path, e.file());
            assertEquals(secondBlock, e.offset());
            assertEquals(0, cache.blockCount());
        }
        assertEquals(entries.get(first), get(table, first), "other blocks still read");
        assertEquals(1, cache.blockCount());
    }

    @Test
    void releasingATablesLastReferenceDropsItsBlocksOnly() throws IOException {
        BlockCache cache = BlockCache.ofCapacity(1 << 20);
        TreeMap<byte[], Entry> entries = entries(2000);
        SsTable one = open("000001.sst", 1, entries, Compression.LZ4, cache);
        SsTable two = open("000002.sst", 2, entries, Compression.ZSTD, cache);
        List<byte[]> keys = new ArrayList<>(entries.keySet());
        for (int i = 0; i < keys.size(); i += 100) {
            get(one, keys.get(i));
            get(two, keys.get(i));
        }
        long each = cache.blockCount() / 2;
        assertTrue(each > 1, "blocks per table: " + each);
        one.retain();
        one.release();
        assertEquals(2 * each, cache.blockCount(), "a reference remains");
        one.markObsolete();
        one.release();
        assertEquals(each, cache.blockCount());
        two.release();
        assertEquals(0, cache.blockCount());
        assertEquals(0, cache.weightBytes());
    }

    @Test
    void releasedTablesDoNotLeaveTheCacheGrowing() throws IOException {
        BlockCache cache = BlockCache.ofCapacity(1 << 20);
        TreeMap<byte[], Entry> entries = entries(2000);
        List<byte[]> keys = new ArrayList<>(entries.keySet());
        SsTable kept = open("000000.sst", 1000, entries, Compression.LZ4, cache);
        get(kept, keys.get(0));
        for (int t = 1; t <= 50; t++) {
            SsTable table = open(String.format("%06d.sst", t), t, entries, Compression.LZ4, cache);
            for (int i = 0; i < keys.size(); i += 50) {
                get(table, keys.get(i));
            }
            table.release();
        }
        assertEquals(1, cache.blockCount(), "the kept table's block");
        assertTrue(cache.ringEntries() < 100, "entries of released tables are cleared out: " + cache.ringEntries());
        long hits = cache.properties().hits();
        get(kept, keys.get(0));
        assertEquals(hits + 1, cache.properties().hits(), "and the kept block is still read from the cache");
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void concurrentReadersThroughASmallCacheReadExactlyWhatWasWritten(Compression compression) throws Exception {
        long seed = Seeds.seed("concurrentReadersThroughASmallCacheReadExactlyWhatWasWritten " + compression);
        BlockCache cache = BlockCache.ofCapacity(8L * (BLOCK_SIZE + BlockCache.ENTRY_OVERHEAD));
        TreeMap<byte[], Entry> entries = entries(5000);
        SsTable table = open("000001.sst", 1, entries, compression, cache);
        List<byte[]> keys = new ArrayList<>(entries.keySet());
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed + t);
                results.add(pool.submit(() -> {
                    int found = 0;
                    for (int i = 0; i < 20_000; i++) {
                        byte[] key = keys.get(random.nextInt(keys.size()));
                        assertEquals(entries.get(key), get(table, key));
                        found++;
                    }
                    return found;
                }));
            }
            for (Future<Integer> result : results) {
                assertEquals(20_000, result.get());
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(cache.weightBytes() <= cache.capacityBytes());
    }
}
