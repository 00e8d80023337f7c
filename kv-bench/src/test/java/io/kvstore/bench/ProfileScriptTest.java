package io.kvstore.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/profile.sh} profiles a node under a few seconds of PUTs and writes a flame graph and the
 * stacks of each event, stacks that name our own classes. The script runs the shaded benchmarks jar, so
 * the module's pom runs this test in the package phase, after the jar is built, with the jar's path in
 * {@code bench.jar}; without it (the test phase) it skips itself.
 */
@Tag("slow")
class ProfileScriptTest {
    private static final String JAR = System.getProperty("bench.jar");
    private static final String SCRIPT = System.getProperty("profile.script");

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void writesTheFlameGraphsAndStacksOfEveryEventNamingOurFrames(@TempDir Path dir) throws Exception {
        assumeTrue(JAR != null && SCRIPT != null, "runs in the package phase, on the built jar");
        assertTrue(Files.isRegularFile(Path.of(JAR)), JAR + " is built before this test runs");
        int port = freePort();
        Path out = dir.resolve("profiles");
        Path log = dir.resolve("profile.log");
        ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT, out.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        // SERVER_JAR empty: the node runs from the benchmarks jar, which this module has just built.
        builder.environment().putAll(Map.of("NODES", "1", "SCENARIO", "put", "RATE", "1000", "DURATION_S", "3",
                "WARMUP_S", "3", "KEYS", "100000", "BASE_PORT", Integer.toString(port), "BENCH_JAR", JAR, "SERVER_JAR", ""));
        Process script = builder.start();
        if (!script.waitFor(300, TimeUnit.SECONDS)) {
            script.destroyForcibly().waitFor();
        }
        String output = Files.readString(log);
        assertEquals(0, script.exitValue(), output);

        Path node = out.resolve("node-" + port);
        for (String event : List.of("cpu", "alloc", "lock")) {
            String html = Files.readString(node.resolve(event + ".html"), StandardCharsets.UTF_8);
            assertTrue(html.startsWith("<!DOCTYPE html>"), event + ": a flame graph page");
            assertTrue(html.contains("put " + event + " node " + port), event + ": its title names the scenario and the node");
            assertTrue(Files.isRegularFile(node.resolve(event + ".collapsed")), event + ": its stacks");
        }
        // A contended lock held over the threshold may or may not happen in 3 s; cores and allocations always do.
        for (String event : List.of("cpu", "alloc")) {
            List<String> stacks = Files.readAllLines(node.resolve(event + ".collapsed"));
            long total = stacks.stream().mapToLong(line -> Long.parseLong(line.substring(line.lastIndexOf(' ') + 1))).sum();
            assertTrue(total > 0, event + ": nothing recorded\n" + output);
            assertTrue(stacks.stream().anyMatch(line -> line.contains("io/kvstore/server/")),
                    event + ": no stack passes through the server's classes\n" + output);
        }
        String summary = Files.readString(out.resolve("summary.txt"));
        assertTrue(summary.contains("== node-" + port + " cpu: "), summary);
        assertTrue(summary.contains("%  io/kvstore/"), "the summary ranks our frames\n" + summary);
        assertTrue(Files.readString(out.resolve("load.log")).contains(" s  measure "), "the load ran through the windows");
    }
}
