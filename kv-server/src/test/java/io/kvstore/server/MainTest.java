package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The process: exit status and output of the real {@code main}. */
class MainTest {

    @Test
    void aUsageErrorExitsWithStatus2AndOneLineWithoutAStackTrace() throws Exception {
        Result result = run("--flush-threshold", "100");
        assertEquals(2, result.status, result.output);
        assertTrue(result.output.startsWith("error: flushThresholdBytes must be >= 1024, got 100"), result.output);
        assertFalse(result.output.contains("Exception"), result.output);
    }

    @Test
    void helpPrintsTheGeneratedUsageAndExits0() throws Exception {
        Result result = run("--help");
        assertEquals(0, result.status, result.output);
        assertTrue(result.output.startsWith("Usage: java -jar kv-server/target/kv-server.jar [OPTIONS]"), result.output);
        assertTrue(result.output.contains("--flush-threshold=BYTES"), result.output);
    }

    private static Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.waitFor(), output);
    }

    private record Result(int status, String output) {
    }
}
