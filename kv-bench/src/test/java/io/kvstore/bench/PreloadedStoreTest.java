package io.kvstore.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PreloadedStoreTest {
    @TempDir
    Path root;

    @BeforeEach
    void benchmarksKeepTheirStoresInTheTemporaryDirectory() {
        System.setProperty("kv.bench.dir", root.toString());
    }

    @AfterEach
    void restoreTheDefaultDirectory() {
        System.clearProperty("kv.bench.dir");
    }

    @Test
    void aStoreIsLoadedOnceAndReusedWithItsContent() throws IOException {
        PreloadedStore.open(BenchEngine.LSM, 5_000, Compression.LZ4, BenchValues.TEXT).close();
        Path base = root.resolve("lsm-5000-lz4-text");
        assertTrue(Files.exists(base.resolve("COMPLETE")), "marked complete once loaded");
        Path sentinel = Files.createFile(base.resolve("sentinel")); // a new load deletes the whole directory
        try (Dao dao = PreloadedStore.open(BenchEngine.LSM, 5_000, Compression.LZ4, BenchValues.TEXT)) {
            assertTrue(Files.exists(sentinel), "reused, not loaded again");
            assertArrayEquals(BenchValues.TEXT.value(4_999), dao.get(BenchKeys.key(4_999)).value());
            assertNull(dao.get(BenchKeys.key(5_000)));
        }
    }

    @Test
    void anIncompleteStoreIsLoadedAgain() throws IOException {
        Path base = root.resolve("lsm-5000-none-random");
        Path leftover = Files.createDirectories(base.resolve("store")).resolve("leftover");
        Files.writeString(leftover, "an interrupted load");
        try (Dao dao = PreloadedStore.open(BenchEngine.LSM, 5_000, Compression.NONE, BenchValues.RANDOM)) {
            assertTrue(Files.notExists(leftover), "the interrupted load's files are gone");
            assertArrayEquals(BenchValues.RANDOM.value(0), dao.get(BenchKeys.key(0)).value());
        }
    }
}
