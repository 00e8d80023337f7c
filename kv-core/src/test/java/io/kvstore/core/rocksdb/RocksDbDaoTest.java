package io.kvstore.core.rocksdb;

import io.kvstore.core.BlockCacheProperties;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What is specific to the RocksDB twin: lifecycle safety around native handles, option mapping. */
class RocksDbDaoTest {
    @TempDir
    Path directory;

    @Test
    void closingTheDaoClosesOpenIteratorsInsteadOfCrashingTheJvm() throws IOException {
        RocksDbDao dao = RocksDbDao.open(DaoOptions.defaults(directory));
        for (int i = 0; i < 10; i++) {
            dao.upsert(Entry.value(new byte[] {(byte) i}, new byte[] {1}, 1));
        }
        CloseableIterator<Entry> iterator = dao.range(null, null);
        iterator.next();
        dao.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, iterator::next);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        iterator.close();
    }

    @Test
    void operationsAfterCloseFailClearly() throws IOException {
        RocksDbDao dao = RocksDbDao.open(DaoOptions.defaults(directory));
        dao.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> dao.get(new byte[] {1}));
        assertTrue(e.getMessage().contains(directory.getFileName().toString()), e.getMessage());
        assertThrows(IllegalStateException.class, () -> dao.upsert(Entry.tombstone(new byte[] {1}, 1)));
        assertThrows(IllegalStateException.class, () -> dao.range(null, null));
    }

    @Test
    void theBlockCacheReportsItsSizeAndBoundButNoCounters() throws IOException {
        try (RocksDbDao dao = RocksDbDao.open(DaoOptions.defaults(directory))) {
            BlockCacheProperties cache = dao.properties().blockCache();
            assertEquals(RocksResources.BLOCK_CACHE_BYTES, cache.capacityBytes());
            assertTrue(cache.bytes() >= 0 && cache.bytes() <= cache.capacityBytes(), cache.toString());
            assertEquals(-1, cache.hits());
            assertEquals(-1, cache.misses());
            assertEquals(-1, cache.evictions());
        }
    }

    @Test
    void syncedWritesWork() throws IOException {
        for (SyncPolicy policy : SyncPolicy.values()) {
            Path store = directory.resolve(policy.name());
            try (RocksDbDao dao = RocksDbDao.open(DaoOptions.builder(store).syncPolicy(policy).build())) {
                dao.upsert(Entry.value(new byte[] {1}, new byte[] {2}, 3));
            }
            try (RocksDbDao dao = RocksDbDao.open(DaoOptions.defaults(store))) {
                assertEquals(Entry.value(new byte[] {1}, new byte[] {2}, 3), dao.get(new byte[] {1}));
            }
        }
    }

    @Test
    void bloomFiltersCanBeDisabled() throws IOException {
        try (RocksDbDao dao = RocksDbDao.open(DaoOptions.builder(directory).bloomBitsPerKey(0).build())) {
            dao.upsert(Entry.value(new byte[] {1}, new byte[] {2}, 3));
            dao.flush();
            dao.upsert(Entry.value(new byte[] {1}, new byte[] {9}, 2));
            assertEquals(Entry.value(new byte[] {1}, new byte[] {2}, 3), dao.get(new byte[] {1}));
        }
    }

    @Test
    void tablesAreCompressedWithTheCodecOfTheOptions() throws IOException {
        Map<Compression, Long> tableBytes = new EnumMap<>(Compression.class);
        for (Compression codec : Compression.values()) {
            Path store = directory.resolve(codec.name());
            try (RocksDbDao dao = RocksDbDao.open(DaoOptions.builder(store).compression(codec).build())) {
                upsertCompressible(dao, 1);
                dao.flush();
            }
            tableBytes.put(codec, tableBytes(store));
        }
        long raw = 2000L * (16 + 1000);
        assertTrue(tableBytes.get(Compression.NONE) > raw, tableBytes.toString());
        assertTrue(tableBytes.get(Compression.LZ4) < raw / 4, tableBytes.toString());
        assertTrue(tableBytes.get(Compression.ZSTD) < raw / 4, tableBytes.toString());
    }

    @Test
    void aStoreReopenedUnderAnotherCodecReadsTheTablesOfBoth() throws IOException {
        try (RocksDbDao dao = RocksDbDao.open(DaoOptions.builder(directory).compression(Compression.LZ4).build())) {
            upsertCompressible(dao, 1);
            dao.flush();
        }
        try (RocksDbDao dao = RocksDbDao.open(DaoOptions.builder(directory).compression(Compression.NONE).build())) {
            upsertCompressible(dao, 2);
            dao.flush();
        }
        try (RocksDbDao dao = RocksDbDao.open(DaoOptions.builder(directory).compression(Compression.ZSTD).build())) {
            for (int i = 0; i < 2000; i++) {
                Entry e = dao.get(compressibleKey(i));
                assertEquals(Entry.value(compressibleKey(i), compressibleValue(i), i % 2 == 0 ? 2 : 1), e);
            }
        }
    }

    /** 2000 entries of 1000-byte values made of one repeated byte; the even keys are written at {@code timestamp}. */
    private static void upsertCompressible(RocksDbDao dao, long timestamp) throws IOException {
        for (int i = 0; i < 2000; i++) {
            if (timestamp == 1 || i % 2 == 0) {
                dao.upsert(Entry.value(compressibleKey(i), compressibleValue(i), timestamp));
            }
        }
    }

    private static byte[] compressibleKey(int i) {
        return String.format("key-%012d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] compressibleValue(int i) {
        byte[] value = new byte[1000];
        Arrays.fill(value, (byte) ('a' + i % 26));
        return value;
    }

    private static long tableBytes(Path store) throws IOException {
        try (Stream<Path> files = Files.list(store)) {
            return files.filter(f -> f.toString().endsWith(".sst")).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }
}
