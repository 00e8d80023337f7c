package io.kvstore.examples.embedding;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedNodeTest {
    @Test
    void aNodeStartedFromAConfigServesHttpAndStopsCleanly(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        EmbeddedNode.run(dir, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.matches("(?s)node listening on http://127\\.0\\.0\\.1:\\d+, .*"), out);
        assertTrue(out.contains("/v0/entity?id=city:3") && out.lines().filter(l -> l.startsWith("PUT ") && l.endsWith("-> 201 "))
                .count() == 3, out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("GET    /v0/entity?id=city:2") && l.endsWith("-> 200 value of city:2")), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("GET    /v0/entity?id=city:9") && l.contains("-> 404")), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("DELETE /v0/entity?id=city:1") && l.contains("-> 202")), out);
        assertTrue(out.contains("-> 200 city:2\\nvalue of city:2city:3\\nvalue of city:3\n"), "range without the deleted key:\n" + out);
        assertTrue(out.endsWith("node stopped\nGET /v0/status after stop -> connection refused\n"), out);
        try (Stream<Path> files = Files.list(dir)) {
            assertTrue(files.findAny().isPresent(), "the store's files stay in " + dir);
        }
    }
}
