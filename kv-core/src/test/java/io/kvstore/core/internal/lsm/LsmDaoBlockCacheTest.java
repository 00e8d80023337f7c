package io.kvstore.core.internal.lsm;

import io.kvstore.core.BlockCacheProperties;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store's block cache follows its options, lets go of the blocks of tables a compaction replaced, and
 * reports its lookups, evictions and size in the store's properties.
 */
class LsmDaoBlockCacheTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int round, int i) {
        return ("{\"round\":" + round + ",\"id\":" + i + ",\"text\":\"some json-like text\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void blocksOfTablesReplacedByACompactionLeaveTheCache() throws IOException {
        DaoOptions options = DaoOptions.builder(dir).compression(Compression.LZ4).blockCacheBytes(8L << 20)
                .compactionTrigger(100).build();
        try (LsmDao dao = LsmDao.open(options)) {
            assertEquals(8L << 20, dao.blockCache().capacityBytes());
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 3000; i++) {
                    dao.upsert(Entry.value(key(i), value(round, i), 1 + round));
                }
                dao.flush();
            }
            assertEquals(3, dao.liveTables().length);
            for (int i = 0; i < 3000; i++) {
                assertArrayEquals(value(2, i), dao.get(key(i)).value());
            }
            long cached = dao.blockCache().blockCount();
            assertTrue(cached > 0, "blocks cached by the reads");
            dao.compact();
            assertEquals(1, dao.liveTables().length);
            assertEquals(0, dao.blockCache().blockCount(), "blocks of the three replaced tables");
            for (int i = 0; i < 3000; i++) {
                assertArrayEquals(value(2, i), dao.get(key(i)).value());
            }
            assertTrue(dao.blockCache().blockCount() > 0, "blocks of the compacted table");
        }
    }

    @Test
    void aCompactionReadsThroughTheCacheWithoutFillingIt() throws IOException {
        long capacity = 16L * options(0).blockSizeBytes();
        DaoOptions options = DaoOptions.builder(dir).compression(Compression.LZ4).blockCacheBytes(capacity)
                .compactionTrigger(100).build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 3000; i++) {
                    dao.upsert(Entry.value(key(i), value(round, i), 1 + round));
                }
                dao.flush();
            }
            assertArrayEquals(value(2, 5), dao.get(key(5)).value());
            BlockCacheProperties before = dao.properties().blockCache();
            assertEquals(1, before.misses(), "one block read: " + before);

            dao.compact();

            BlockCacheProperties after = dao.properties().blockCache();
            assertEquals(1, dao.liveTables().length);
            assertEquals(1, after.hits(), "the block the read cached is read from the cache: " + after);
            assertTrue(after.misses() > 16, "the other blocks (far more than the cache holds) are looked up: " + after);
            assertEquals(0, after.evictions(), "none of them is cached, so nothing is pushed out: " + after);
            assertEquals(0, after.bytes(), "and the replaced tables' blocks are gone: " + after);
            for (int i = 0; i < 3000; i++) {
                assertArrayEquals(value(2, i), dao.get(key(i)).value());
            }
        }
    }

    @Test
    void aScanReadsThroughTheCacheWithoutFillingItWhereARangeFillsIt() throws IOException {
        try (LsmDao dao = openWithOneTable(16L * options(0).blockSizeBytes())) {
            assertArrayEquals(value(0, 5), dao.get(key(5)).value());
            BlockCacheProperties before = dao.properties().blockCache();

            List<Entry> scanned = new ArrayList<>();
            try (CloseableIterator<Entry> scan = dao.scan(null, null)) {
                scan.forEachRemaining(scanned::add);
            }
            assertEquals(3000, scanned.size());
            BlockCacheProperties afterScan = dao.properties().blockCache();
            assertEquals(1, afterScan.hits(), "the block the read cached is read from the cache: " + afterScan);
            assertTrue(afterScan.misses() > 16, "the other blocks (far more than the cache holds) are looked up: " + afterScan);
            assertEquals(0, afterScan.evictions(), "none of them is cached: " + afterScan);
            assertEquals(before.bytes(), afterScan.bytes(), "the cache holds what it held: " + afterScan);

            try (CloseableIterator<Entry> range = dao.range(null, null)) {
                range.forEachRemaining(entry -> { });
            }
            assertTrue(dao.properties().blockCache().evictions() > 0, "a range caches the blocks it reads: "
                    + dao.properties().blockCache());
        }
    }

    @Test
    void aKeyReadTwiceMissesTheCacheOnceThenHitsIt() throws IOException {
        DaoOptions options = DaoOptions.builder(dir).compression(Compression.LZ4).blockCacheBytes(1L << 20).build();
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < 100; i++) {
                dao.upsert(Entry.value(key(i), value(0, i), 1));
            }
            dao.flush();
            assertEquals(new BlockCacheProperties(0, 0, 0, 0, 1L << 20), dao.properties().blockCache());

            assertArrayEquals(value(0, 7), dao.get(key(7)).value());
            BlockCacheProperties first = dao.properties().blockCache();
            assertEquals(0, first.hits());
            assertEquals(1, first.misses());
            assertTrue(first.bytes() > 0, "the block read is cached: " + first);

            assertArrayEquals(value(0, 7), dao.get(key(7)).value());
            BlockCacheProperties second = dao.properties().blockCache();
            assertEquals(1, second.hits());
            assertEquals(1, second.misses());
            assertEquals(first.bytes(), second.bytes());
            assertEquals(0, second.evictions());
        }
    }

    @Test
    void blocksThatDoNotCompressAreReadInPlaceAndCountNeitherHitNorMiss() throws IOException {
        DaoOptions options = DaoOptions.builder(dir).compression(Compression.LZ4).blockCacheBytes(1L << 20).build();
        Random random = new Random(7);
        byte[][] values = new byte[500][];
        try (LsmDao dao = LsmDao.open(options)) {
            for (int i = 0; i < values.length; i++) {
                values[i] = new byte[200];
                random.nextBytes(values[i]);
                dao.upsert(Entry.value(key(i), values[i], 1));
            }
            dao.flush();
            for (int read = 0; read < 2; read++) {
                for (int i = 0; i < values.length; i++) {
                    assertArrayEquals(values[i], dao.get(key(i)).value());
                }
            }
            assertEquals(new BlockCacheProperties(0, 0, 0, 0, 1L << 20), dao.properties().blockCache(),
                    "a larger cache would not save a single decompression");
        }
    }

    @Test
    void aCacheSmallerThanTheBlocksReadEvictsAndStaysWithinItsBound() throws IOException {
        long capacity = 4L * options(0).blockSizeBytes();
        try (LsmDao dao = openWithOneTable(capacity)) {
            for (int i = 0; i < 3000; i++) {
                dao.get(key(i));
            }
            BlockCacheProperties p = dao.properties().blockCache();
            assertTrue(p.evictions() > 0, "blocks evicted: " + p);
            assertTrue(p.bytes() <= capacity, "within its bound: " + p);
            assertEquals(capacity, p.capacityBytes());
            assertTrue(p.misses() > p.evictions(), "a block is evicted only once it was cached: " + p);
        }
    }

    @Test
    void aCacheThatIsOffCountsNothing() throws IOException {
        try (LsmDao dao = LsmDao.open(options(0))) {
            dao.upsert(Entry.value(key(1), value(0, 1), 1));
            dao.flush();
            assertArrayEquals(value(0, 1), dao.get(key(1)).value());
            assertEquals(BlockCacheProperties.OFF, dao.properties().blockCache());
        }
    }

    /** A store with a block cache of {@code blockCacheBytes} and one table of 3,000 keys, far more than 16 blocks. */
    private LsmDao openWithOneTable(long blockCacheBytes) throws IOException {
        LsmDao dao = LsmDao.open(options(blockCacheBytes));
        for (int i = 0; i < 3000; i++) {
            dao.upsert(Entry.value(key(i), value(0, i), 1));
        }
        dao.flush();
        return dao;
    }

    private DaoOptions options(long blockCacheBytes) {
        return DaoOptions.builder(dir).compression(Compression.LZ4).blockCacheBytes(blockCacheBytes).build();
    }

    @Test
    void theOptionDefaultsToAnEighthOfTheHeapAndRefusesANegativeBound() {
        assertEquals(Runtime.getRuntime().maxMemory() / 8, DaoOptions.defaults(dir).blockCacheBytes());
        assertEquals(0, DaoOptions.builder(dir).blockCacheBytes(0).build().blockCacheBytes());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DaoOptions.builder(dir).blockCacheBytes(-1).build());
        assertTrue(e.getMessage().contains("blockCacheBytes"), e.getMessage());
    }
}
