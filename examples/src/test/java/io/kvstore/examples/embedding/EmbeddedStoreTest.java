package io.kvstore.examples.embedding;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStoreTest {
    @Test
    void writesReadsDeletesScansAndReopens(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EmbeddedStore.run(dir, 1000, new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("get user:000042 -> value-42"), text);
        assertTrue(text.contains("after delete, get user:000042 -> (absent)"), text);
        assertTrue(text.contains("  user:000041 = value-41\n  user:000043 = value-43"), text);
        assertTrue(text.contains("after reopen, get user:000043 -> value-43"), text);
    }
}
