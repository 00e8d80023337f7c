package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store's block cache follows its options and lets go of the blocks of tables a compaction replaced. */
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
    void theOptionDefaultsToAnEighthOfTheHeapAndRefusesANegativeBound() {
        assertEquals(Runtime.getRuntime().maxMemory() / 8, DaoOptions.defaults(dir).blockCacheBytes());
        assertEquals(0, DaoOptions.builder(dir).blockCacheBytes(0).build().blockCacheBytes());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DaoOptions.builder(dir).blockCacheBytes(-1).build());
        assertTrue(e.getMessage().contains("blockCacheBytes"), e.getMessage());
    }
}
