package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone server in a child JVM, stopped with SIGTERM: a request in flight at that moment is
 * finished, the store is closed, and a restarted server serves every acknowledged write.
 */
@Tag("slow")
class SigtermShutdownTest {
    @TempDir
    Path dir;

    @Test
    void sigtermFinishesTheRequestInFlightAndARestartServesEveryAcknowledgedWrite() throws Exception {
        int port = TestCluster.freePort();
        ChildServer first = ChildServer.start(port, dir);
        TestCluster client = TestCluster.client(port);
        for (int i = 0; i < 200; i++) {
            assertEquals(201, client.put(0, "id=key" + i, "value" + i));
        }
        assertEquals(202, client.delete(0, "id=key7"));
        try (Socket inFlight = new Socket("127.0.0.1", port)) {
            OutputStream out = inFlight.getOutputStream();
            out.write("PUT /v0/entity?id=in-flight HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nhal"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            first.process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close the log pipe
            first.awaitLine("shutting down");
            out.write("f!!".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(inFlight.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 201", answer, "the request in flight when SIGTERM came is finished");
        }
        assertTrue(first.process.waitFor(60, TimeUnit.SECONDS), "the server exits after SIGTERM");
        first.awaitLine("stopped");

        ChildServer second = ChildServer.start(port, dir);
        try {
            for (int i = 0; i < 200; i++) {
                if (i == 7) {
                    assertEquals(404, client.get(0, "id=key7").statusCode());
                } else {
                    assertEquals("value" + i, new String(client.get(0, "id=key" + i).body(), StandardCharsets.UTF_8));
                }
            }
            assertEquals("half!!", new String(client.get(0, "id=in-flight").body(), StandardCharsets.UTF_8));
        } finally {
            second.process.toHandle().destroy();
            assertTrue(second.process.waitFor(60, TimeUnit.SECONDS));
        }
    }

    /** {@link Main} in its own JVM, its log lines collected so a test can wait for one. */
    private static final class ChildServer {
        final Process process;
        private final List<String> lines = new ArrayList<>();
        private final List<PendingLine> waiting = new ArrayList<>();

        private ChildServer(Process process) {
            this.process = process;
            Thread reader = new Thread(() -> read(process.getInputStream()), "child-server-log");
            reader.setDaemon(true);
            reader.start();
        }

        static ChildServer start(int port, Path dir) throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process process = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "--port", Integer.toString(port), "--data-dir", dir.resolve("data").toString())
                    .redirectErrorStream(true).start();
            ChildServer child = new ChildServer(process);
            child.awaitLine("listening on port " + port);
            return child;
        }

        void awaitLine(String fragment) throws Exception {
            CompletableFuture<String> seen = new CompletableFuture<>();
            synchronized (lines) {
                for (String line : lines) {
                    if (line.contains(fragment)) {
                        return;
                    }
                }
                waiting.add(new PendingLine(fragment, seen));
            }
            try {
                seen.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                synchronized (lines) {
                    throw new AssertionError("no log line with '" + fragment + "'; the child said: " + lines);
                }
            }
        }

        private void read(InputStream in) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    synchronized (lines) {
                        lines.add(line);
                        for (PendingLine p : waiting) {
                            if (line.contains(p.fragment)) {
                                p.seen.complete(line);
                            }
                        }
                    }
                }
            } catch (IOException e) {
                // the child is gone; awaitLine reports what it said
            }
        }

        private static final class PendingLine {
            final String fragment;
            final CompletableFuture<String> seen;

            PendingLine(String fragment, CompletableFuture<String> seen) {
                this.fragment = fragment;
                this.seen = seen;
            }
        }
    }
}
