package io.kvstore.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Ports;
import io.kvstore.server.Main;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three nodes in their own JVMs; one is killed with SIGKILL, and the client carries on without it. */
@Tag("slow")
class KvClientKilledNodeTest {
    @TempDir
    Path dir;

    @Test
    void aKilledNodeThatIsTheFirstSeedAndAReplicaOfEveryKeyDoesNotStopTheClient() throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            urls.add("http://127.0.0.1:" + Ports.free());
        }
        List<Process> nodes = new ArrayList<>();
        try {
            List<CompletableFuture<Void>> listening = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                listening.add(startNode(urls, i, nodes));
            }
            for (CompletableFuture<Void> node : listening) {
                node.get(60, TimeUnit.SECONDS);
            }
            try (KvClient client = KvClient.connect(urls.toArray(new String[0]))) {
                for (int i = 0; i < 100; i++) {
                    client.blocking().put("before-" + i, "v" + i);
                }
                nodes.get(0).destroyForcibly().waitFor(); // SIGKILL: its connections die with it
                int routedToTheDeadNode = 0;
                for (int i = 0; i < 100; i++) {
                    assertEquals("v" + i, client.blocking().getString("before-" + i).orElseThrow(), "2 of 3 by default");
                    client.blocking().put("after-" + i, "w" + i);
                    byte[] key = ("after-" + i).getBytes(StandardCharsets.UTF_8);
                    routedToTheDeadNode += client.nodeFor(key, CallOptions.DEFAULT).equals(urls.get(0)) ? 1 : 0;
                }
                // It is tried again only when its down mark expires (1 s, then 2 s, 4 s ... apart).
                assertTrue(routedToTheDeadNode <= 5, "the dead node is avoided: " + routedToTheDeadNode + " of 100");
            }
            // A new client whose first seed is the dead node reads the map from the next one.
            try (KvClient client = KvClient.connect(urls.toArray(new String[0]))) {
                assertEquals(urls, client.nodes());
                for (int i = 0; i < 100; i++) {
                    assertEquals("w" + i, client.blocking().getString("after-" + i).orElseThrow());
                }
            }
        } finally {
            for (Process node : nodes) {
                node.destroyForcibly().waitFor();
            }
        }
    }

    /** Starts {@link Main} as node {@code i} in a JVM of its own, added to {@code nodes}; completes once it listens. */
    private CompletableFuture<Void> startNode(List<String> urls, int i, List<Process> nodes) throws Exception {
        String port = urls.get(i).substring(urls.get(i).lastIndexOf(':') + 1);
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "--port", port,
                "--data-dir", dir.resolve("node-" + i).toString(), "--cluster", String.join(",", urls),
                "--self", urls.get(i), "--event-loops", "1", "--replica-timeout-ms", "10000");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        nodes.add(process);
        CompletableFuture<Void> listening = new CompletableFuture<>();
        StringBuilder log = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                    if (line.contains("listening on port " + port)) {
                        listening.complete(null);
                    }
                }
            } catch (java.io.IOException e) {
                listening.completeExceptionally(e);
            }
            listening.completeExceptionally(new IllegalStateException("node " + i + " exited:\n" + log));
        }, "node-" + i + "-log");
        reader.setDaemon(true);
        reader.start();
        return listening;
    }
}
