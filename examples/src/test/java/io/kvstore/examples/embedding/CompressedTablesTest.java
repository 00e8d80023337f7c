package io.kvstore.examples.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Compression;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompressedTablesTest {
    @Test
    void compressedTablesAreSmallerThanPlainOnes(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Map<Compression, Long> sizes = CompressedTables.run(dir, 5_000, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(3, sizes.size(), out);
        long none = sizes.get(Compression.NONE);
        // 5,000 entries of about 100 bytes each: the plain tables hold at least the values.
        assertTrue(none > 5_000 * 80, out);
        assertTrue(sizes.get(Compression.LZ4) < none * 0.8, "LZ4 saves on JSON-like values:\n" + out);
        assertTrue(sizes.get(Compression.ZSTD) < none * 0.8, "ZSTD saves on JSON-like values:\n" + out);
        for (Compression codec : Compression.values()) {
            assertTrue(out.lines().anyMatch(line -> line.startsWith(codec.name() + " ") && line.endsWith("%")), out);
        }
    }
}
