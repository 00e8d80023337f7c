package io.kvstore.core.rocksdb;

import io.kvstore.core.BlockCacheProperties;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

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
}
