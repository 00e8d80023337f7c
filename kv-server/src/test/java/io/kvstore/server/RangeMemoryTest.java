package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A range larger than 1 GB streamed from a server whose whole heap is 64 MB: only back-pressure and a
 * lazy iterator make that possible. The stream is checked chunk by chunk on the raw bytes. The store is
 * written by a server with a roomier heap first: what is measured is the range path, not the engine's
 * flush and compaction (which need more than 64 MB for values this size).
 */
@Tag("slow")
class RangeMemoryTest {
    private static final int ENTRIES = 4400;
    private static final int VALUE_BYTES = 256 << 10;

    @TempDir
    Path dir;

    @Test
    void aRangeOfMoreThanAGigabyteStreamsFromA64MegabyteHeap() throws Exception {
        int port = TestCluster.freePort();
        TestCluster client = TestCluster.client(port);
        // Loading is not what is tested: a flush or compaction that stalls a write past the default 2 s
        // on a loaded machine must not fail the test.
        ChildServer writer = ChildServer.start(port, dir.resolve("data"), "-Xmx512m",
                "--flush-threshold", Integer.toString(16 << 20), "--max-body-bytes", Integer.toString(VALUE_BYTES),
                "--replica-timeout-ms", "15000");
        try {
            byte[] value = new byte[VALUE_BYTES];
            new Random(42).nextBytes(value);
            for (int i = 0; i < ENTRIES; i++) {
                stamp(value, i);
                int status;
                try {
                    status = client.send(0, "PUT", "/v0/entity?id=" + key(i), value).statusCode();
                } catch (IOException e) {
                    throw new AssertionError("PUT " + i + " failed; the server said:\n" + writer.log(), e);
                }
                assertEquals(201, status, "PUT " + i);
            }
        } finally {
            writer.terminate();
            assertTrue(writer.process.waitFor(120, TimeUnit.SECONDS));
        }
        ChildServer server = ChildServer.start(port, dir.resolve("data"), "-Xmx64m");
        try {
            byte[] value = new byte[VALUE_BYTES];
            new Random(42).nextBytes(value);
            long streamed = 0;
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(60_000);
                socket.getOutputStream().write("GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
                String head = TestCluster.readHead(in);
                assertTrue(head.startsWith("HTTP/1.1 200"), head);
                assertTrue(head.toLowerCase().contains("transfer-encoding: chunked"), head);
                byte[] expected = value.clone();
                for (int i = 0; i < ENTRIES; i++) {
                    byte[] chunk = readChunk(in);
                    String key = key(i);
                    assertEquals(key.length() + 1 + VALUE_BYTES, chunk.length, "chunk " + i);
                    assertEquals(key + "\n", new String(chunk, 0, key.length() + 1, StandardCharsets.US_ASCII), "order, chunk " + i);
                    stamp(expected, i);
                    for (int b = 0; b < 8; b++) {
                        assertEquals(expected[b], chunk[key.length() + 1 + b], "value of " + key);
                    }
                    streamed += chunk.length;
                }
                assertEquals(0, readChunk(in).length, "the last chunk ends the stream");
            } catch (IOException | AssertionError e) {
                throw new AssertionError("streaming failed; the server said:\n" + server.log(), e);
            }
            assertTrue(streamed > 1_000_000_000L, "streamed " + streamed + " bytes");
            assertTrue(server.process.isAlive(), "the server survived");
            assertFalse(server.saidSomethingContaining("OutOfMemoryError"), server.log());
        } finally {
            server.terminate();
            assertTrue(server.process.waitFor(60, TimeUnit.SECONDS));
        }
    }

    private static String key(int i) {
        return "k" + (100000 + i);
    }

    private static void stamp(byte[] value, int i) {
        for (int b = 0; b < 8; b++) {
            value[b] = (byte) (i >>> (8 * b));
        }
    }

    /** One chunk of chunked transfer encoding: hex size, CRLF, data, CRLF. */
    private static byte[] readChunk(InputStream in) throws IOException {
        StringBuilder size = new StringBuilder();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed in a chunk size");
            }
            size.append((char) c);
        }
        assertEquals('\n', in.read());
        byte[] data = in.readNBytes(Integer.parseInt(size.toString(), 16));
        assertEquals('\r', in.read());
        assertEquals('\n', in.read());
        return data;
    }
}
