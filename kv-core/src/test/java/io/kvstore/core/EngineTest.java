package io.kvstore.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EngineTest {
    @TempDir
    Path directory;

    @Test
    void namesResolveCaseInsensitively() {
        assertEquals(Engine.LSM, Engine.fromName("lsm"));
        assertEquals(Engine.ROCKSDB, Engine.fromName("rocksdb"));
        assertEquals(Engine.ROCKSDB, Engine.fromName(" RocksDB "));
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Engine.fromName("leveldb"));
        assertTrue(e.getMessage().contains("'leveldb'"), e.getMessage());
        assertTrue(e.getMessage().contains("lsm") && e.getMessage().contains("rocksdb"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Engine.fromName(null));
        assertThrows(IllegalArgumentException.class, () -> Engine.fromName(""));
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void everyEngineOpensAWorkingDao(Engine engine) throws IOException {
        try (Dao dao = engine.open(DaoOptions.defaults(directory))) {
            dao.upsert(Entry.value(new byte[] {1}, new byte[] {2}, 3));
            assertEquals(Entry.value(new byte[] {1}, new byte[] {2}, 3), dao.get(new byte[] {1}));
        }
        assertEquals(engine, Engine.fromName(engine.id()));
    }
}
