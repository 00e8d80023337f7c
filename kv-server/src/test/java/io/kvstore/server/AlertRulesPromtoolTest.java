package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ops/prometheus/alerts.yml checked and unit-tested by Prometheus's own promtool, so that a rule that does not
 * parse, or fires when it should not, fails the build. Skipped where promtool is not installed, unless
 * {@code KV_REQUIRE_PROMTOOL=1} (as CI sets it) makes its absence a failure.
 */
class AlertRulesPromtoolTest {
    private Path promtool;

    @BeforeEach
    void findPromtool() {
        promtool = onPath("promtool");
        if (promtool == null) {
            String why = "promtool is not on the PATH (Debian: apt-get install prometheus)";
            if ("1".equals(System.getenv("KV_REQUIRE_PROMTOOL"))) {
                fail(why + ", and KV_REQUIRE_PROMTOOL=1 requires it");
            }
            Assumptions.assumeTrue(false, why);
        }
    }

    @Test
    void theRulesAreValid() throws Exception {
        String output = promtool("check", "rules", "ops/prometheus/alerts.yml");
        assertTrue(output.contains("SUCCESS"), output);
    }

    @Test
    void eachAlertFiresAndStaysSilentAsItsUnitTestsSay() throws Exception {
        String output = promtool("test", "rules", "ops/prometheus/alerts-test.yml");
        assertTrue(output.contains("SUCCESS"), output);
    }

    /** Runs promtool in the repository's root and returns what it printed, failing the test on a non-zero exit. */
    private String promtool(String... arguments) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(promtool.toString());
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(OpsArtifactsTest.repository().toFile())
                .redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] printed = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "promtool did not finish in 60 s");
        String output = new String(printed, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), String.join(" ", command) + " failed:\n" + output);
        return output;
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
