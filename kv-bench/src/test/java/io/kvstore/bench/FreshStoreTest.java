package io.kvstore.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.Compression;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreshStoreTest {
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
    void aFreshStoreStartsEmptyAndLeavesNothingBehind() throws IOException {
        for (BenchEngine engine : BenchEngine.values()) {
            try (FreshStore store = FreshStore.open(engine, Compression.NONE)) {
                assertNull(store.dao.get(BenchKeys.key(0)), engine + ": empty");
                store.dao.upsert(Entry.value(BenchKeys.key(0), BenchValues.RANDOM.value(0), 1));
                assertArrayEquals(BenchValues.RANDOM.value(0), store.dao.get(BenchKeys.key(0)).value());
            }
            assertEquals(List.of(), children(root), engine + ": the store's directory is deleted");
        }
    }

    private static List<Path> children(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
    }
}
