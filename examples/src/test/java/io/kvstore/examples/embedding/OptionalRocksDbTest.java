package io.kvstore.examples.embedding;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** This module depends on kv-server as an embedding application does: RocksDB's native jar stays out. */
class OptionalRocksDbTest {

    @Test
    void anEmbedderGetsNoRocksDbAndAClearErrorIfItChoosesThatEngine(@TempDir Path dir) {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.rocksdb.RocksDB"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Engine.ROCKSDB.open(DaoOptions.defaults(dir)));
        assertTrue(e.getMessage().contains("org.rocksdb:rocksdbjni"), e.getMessage());
    }
}
