package io.kvstore.examples.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalClusterTest {
    @Test
    void aQuorumWriteSurvivesOneStoppedNode(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LocalCluster.run(dir, new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("PUT  greeting ack=2 from=3 -> stored"), text);
        assertTrue(text.contains("GET  greeting ack=2 from=3 -> hello, cluster"), text);
        assertTrue(text.contains("GET  greeting ack=3 from=3 -> 504 not enough replicas"), text);
    }
}
