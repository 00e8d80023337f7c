package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone server in a child JVM, stopped with SIGTERM: a request in flight at that moment is
 * finished, the store is closed, and a restarted server serves every acknowledged write.
 */
class SigtermShutdownTest {
    @TempDir
    Path dir;

    @Test
    void sigtermFinishesTheRequestInFlightAndARestartServesEveryAcknowledgedWrite() throws Exception {
        int port = TestCluster.freePort();
        ChildServer first = ChildServer.start(port, dir.resolve("data"), "-Xmx256m");
        TestCluster client = TestCluster.client(port);
        for (int i = 0; i < 200; i++) {
            assertEquals(201, client.put(0, "id=key" + i, "value" + i));
        }
        assertEquals(202, client.delete(0, "id=key7"));
        try (Socket inFlight = new Socket("127.0.0.1", port)) {
            OutputStream out = inFlight.getOutputStream();
            inFlight.setSoTimeout(30_000);
            out.write("PUT /v0/entity?id=in-flight HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 6\r\n\r\nhal"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // The 100 says the server has read the headers: the request is in flight, not just in a socket
            // buffer (a connection whose request has not been read yet is closed by a stopping server).
            assertTrue(TestCluster.readHead(inFlight.getInputStream()).startsWith("HTTP/1.1 100 "));
            first.terminate();
            first.awaitLine("shutting down");
            out.write("f!!".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(inFlight.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 201", answer, "the request in flight when SIGTERM came is finished");
        }
        assertTrue(first.process.waitFor(60, TimeUnit.SECONDS), "the server exits after SIGTERM");
        first.awaitLine("stopped");

        ChildServer second = ChildServer.start(port, dir.resolve("data"), "-Xmx256m");
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
            second.terminate();
            assertTrue(second.process.waitFor(60, TimeUnit.SECONDS));
        }
    }
}
