package io.kvstore.core.rocksdb;

import io.kvstore.core.BlockCacheProperties;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CompactionStyle;
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
            assertEquals(0, dao.properties().backgroundErrors(), "RocksDB counts its own background errors");
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

    @Test
    void compactionStyleAndWriteSlowdownReachRocksDbsOptions() throws IOException {
        Map<CompactionStyle, String> expected = Map.of(CompactionStyle.LEVELED, "kCompactionStyleLevel",
                CompactionStyle.SIZE_TIERED, "kCompactionStyleUniversal");
        for (CompactionStyle style : CompactionStyle.values()) {
            Path store = directory.resolve(style.name());
            DaoOptions options = DaoOptions.builder(store).compactionStyle(style).delayedWriteBytesPerSecond(3 << 20).build();
            try (RocksDbDao dao = RocksDbDao.open(options)) {
                dao.upsert(Entry.value(new byte[] {1}, new byte[] {2}, 3));
            }
            String written = rocksDbOptionsFile(store);
            assertTrue(written.contains("compaction_style=" + expected.get(style)), style + ": " + written);
            assertTrue(written.contains("delayed_write_rate=" + (3 << 20)), written);
        }
    }

    @Test
    void aCompactionRateLimitsWhatRocksDbWrites() throws IOException {
        long bytesPerSecond = 1 << 20;
        DaoOptions options = DaoOptions.builder(directory).compression(Compression.NONE)
                .compactionBytesPerSecond(bytesPerSecond).build();
        try (RocksDbDao dao = RocksDbDao.open(options)) {
            upsertCompressible(dao, 1); // 2 MB, uncompressed: two seconds' worth at the limit
            long start = System.nanoTime();
            dao.flush();
            long millis = (System.nanoTime() - start) / 1_000_000;
            // A lower bound only: a slow machine makes the flush longer, never shorter.
            assertTrue(millis >= 1_000, "a 2 MB flush at 1 MiB/s took " + millis + " ms");
        }
    }

    /** The text of the newest OPTIONS file RocksDB wrote in {@code store}. */
    private static String rocksDbOptionsFile(Path store) throws IOException {
        try (Stream<Path> files = Files.list(store)) {
            Path newest = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .max(Path::compareTo).orElseThrow(() -> new AssertionError("no OPTIONS file in " + store));
            return Files.readString(newest);
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
