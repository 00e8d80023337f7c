package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar runs on its own: {@code java -jar target/kvctl.jar}. The module's pom runs this test in
 * the package phase, after the jar is built, with the jar's path in {@code kvctl.jar}; without it (the test
 * phase) it skips itself. The other tests run the commands in the test's JVM.
 */
@Tag("slow")
class KvctlJarTest {
    private static final String JAR = System.getProperty("kvctl.jar");

    private static Process run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "kvctl did not exit within 60 s");
        return process;
    }

    @Test
    void theJarPrintsItsVersionAndCompletionAndExitsThreeForANodeThatDoesNotAnswer() throws Exception {
        assumeTrue(JAR != null, "runs in the package phase, on the built jar");
        assertTrue(Files.isRegularFile(Path.of(JAR)), JAR + " is built before this test runs");
        Process version = run("--version");
        assertEquals(0, version.exitValue());
        assertTrue(new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8).startsWith("kvctl 0."),
                "the version from the jar's manifest");
        Process completion = run("completion");
        assertEquals(0, completion.exitValue());
        assertTrue(new String(completion.getInputStream().readAllBytes(), StandardCharsets.UTF_8).contains("complete -F _complete_kvctl"));

        Process down = run("status", "--node", "http://127.0.0.1:" + Nodes.freePort(), "--timeout", "2");
        String err = new String(down.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(Kvctl.UNREACHABLE, down.exitValue(), err);
        assertTrue(err.startsWith("kvctl status: cannot reach http://127.0.0.1:"), err);
        assertEquals("", new String(down.getInputStream().readAllBytes(), StandardCharsets.UTF_8), "nothing on stdout");
    }
}
