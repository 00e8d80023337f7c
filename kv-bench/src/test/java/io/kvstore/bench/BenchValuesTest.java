package io.kvstore.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchValuesTest {
    private static final int KEYS = 8_000;

    @Test
    void everyValueHasTheFixedSizeAndIsAFunctionOfItsIndex() {
        for (BenchValues values : BenchValues.values()) {
            for (long index = 0; index < 1000; index++) {
                byte[] value = values.value(index);
                assertEquals(BenchValues.VALUE_BYTES, value.length, values + " #" + index);
                assertArrayEquals(value, values.value(index), values + " #" + index);
            }
            assertFalse(Arrays.equals(values.value(1), values.value(2)), values + ": neighbours differ");
        }
    }

    @Test
    void textValuesAreJsonLikeText() {
        for (long index = 0; index < 1000; index++) {
            String text = new String(BenchValues.TEXT.value(index), StandardCharsets.US_ASCII);
            assertTrue(text.startsWith("{\"id\":") && text.endsWith("\"}"), text);
            assertTrue(text.chars().allMatch(c -> c >= 0x20 && c < 0x7F), text);
        }
    }

    /**
     * The compression benchmark's premise: LZ4 tables of text values are about half the size; of random
     * values it only shrinks the entries' own fields (lengths, timestamps).
     */
    @Test
    void lz4HalvesTablesOfTextValuesButNotOfRandomOnes(@TempDir Path directory) throws IOException {
        double text = tableBytes(directory, "text-lz4", Compression.LZ4, BenchValues.TEXT)
                / (double) tableBytes(directory, "text-none", Compression.NONE, BenchValues.TEXT);
        double random = tableBytes(directory, "random-lz4", Compression.LZ4, BenchValues.RANDOM)
                / (double) tableBytes(directory, "random-none", Compression.NONE, BenchValues.RANDOM);
        assertTrue(text > 0.40 && text < 0.65, "LZ4 kept " + text + " of text tables");
        assertTrue(random > 0.85, "LZ4 kept " + random + " of random tables");
    }

    private static long tableBytes(Path parent, String name, Compression codec, BenchValues values) throws IOException {
        try (Dao dao = Engine.LSM.open(PreloadedStore.options(parent.resolve(name), codec))) {
            for (int i = 0; i < KEYS; i++) {
                dao.upsert(Entry.value(BenchKeys.key(i), values.value(i), 1));
            }
            dao.flush();
            dao.compact();
            long bytes = dao.properties().tableBytes();
            assertTrue(bytes > (long) KEYS * BenchKeys.KEY_BYTES, name + ": " + bytes + " table bytes");
            return bytes;
        }
    }
}
