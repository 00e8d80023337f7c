package io.kvstore.examples.embedding;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExpiringKeysTest {
    @Test
    void aKeyWithATtlReadsAsAbsentFromItsExpiryOnAndStaysSo(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ExpiringKeys.run(dir, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("now:          session:a -> token-a, user:a -> Ada\n"), out);
        assertTrue(out.contains("after 59 min: session:a -> token-a\n"), out);
        assertTrue(out.contains("after 60 min: session:a -> (absent), user:a -> Ada\n"), out);
        assertTrue(out.contains("after flush and reopen: session:a -> (absent), user:a -> Ada\n"), out);
    }
}
