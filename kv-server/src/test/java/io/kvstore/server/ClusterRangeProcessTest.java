package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster range across real processes: a peer killed with SIGKILL in the middle of the stream, a
 * peer frozen with SIGSTOP, and a range larger than the heap of every node. Each store is written directly (no HTTP) before its node
 * starts, as if every write had reached it.
 */
@Tag("slow")
class ClusterRangeProcessTest {
    @TempDir
    Path dir;
    private final List<ChildServer> children = new ArrayList<>();

    @AfterEach
    void stopChildren() throws Exception {
        for (ChildServer child : children) {
            child.process.destroyForcibly();
            child.process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String key(int i) {
        return "k" + (100000 + i);
    }

    /** A value of {@code size} bytes that names its key and version in its first 8 bytes. */
    private static byte[] value(int i, int version, int size) {
        byte[] value = new byte[size];
        for (int b = 0; b < 4; b++) {
            value[b] = (byte) (i >>> (8 * b));
            value[4 + b] = (byte) (version >>> (8 * b));
        }
        return value;
    }

    /** Writes keys {@code 0..count-1} that {@code holds} accepts, at {@code version} (also the timestamp). */
    private static void write(Path store, int count, IntPredicate holds, int version, int valueBytes) throws IOException {
        try (Dao dao = Engine.LSM.open(DaoOptions.builder(store).build())) {
            for (int i = 0; i < count; i++) {
                if (holds.test(i)) {
                    dao.upsert(Entry.value(key(i).getBytes(StandardCharsets.US_ASCII), value(i, version, valueBytes), version));
                }
            }
            dao.flush();
        }
    }

    private List<ChildServer> startTwo(String heap, int maxBodyBytes) throws Exception {
        int[] ports = {TestCluster.freePort(), TestCluster.freePort()};
        String nodes = "http://127.0.0.1:" + ports[0] + ",http://127.0.0.1:" + ports[1];
        for (int n = 0; n < 2; n++) {
            children.add(ChildServer.start(ports[n], dir.resolve("node-" + n), heap, "--cluster", nodes,
                    "--self", "http://127.0.0.1:" + ports[n], "--max-body-bytes", Integer.toString(maxBodyBytes),
                    "--event-loops", "1"));
        }
        return children;
    }

    private static InputStream requestRange(Socket socket, String query) throws IOException {
        socket.setSoTimeout(60_000);
        socket.getOutputStream().write(("GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        String head = TestCluster.readHead(in);
        assertTrue(head.startsWith("HTTP/1.1 200"), head);
        return in;
    }

    /** Checks the chunk of key {@code i} at {@code version}; returns its length. */
    private static int expectChunk(InputStream in, int i, int version, int valueBytes) throws IOException {
        byte[] chunk = readChunk(in);
        String key = key(i);
        assertEquals(key.length() + 1 + valueBytes, chunk.length, "chunk of " + key);
        assertEquals(key + "\n", new String(chunk, 0, key.length() + 1, StandardCharsets.US_ASCII), "order");
        byte[] expected = value(i, version, 8);
        for (int b = 0; b < 8; b++) {
            assertEquals(expected[b], chunk[key.length() + 1 + b], "value of " + key);
        }
        return chunk.length;
    }

    @Test
    void aPeerKilledMidStreamEndsTheRangeInErrorOnlyWhenAckCannotBeMet() throws Exception {
        int count = 3000;
        int valueBytes = 16 << 10;
        // Both nodes hold every key, as after writes at ack=2 from=2: 48 MB each, several times what the
        // sockets between the client and the two nodes buffer.
        write(dir.resolve("node-0"), count, i -> true, 1, valueBytes);
        write(dir.resolve("node-1"), count, i -> true, 1, valueBytes);
        for (int ack = 1; ack <= 2; ack++) {
            List<ChildServer> nodes = startTwo("-Xmx256m", valueBytes);
            int port = Integer.parseInt(nodes.get(0).log().replaceAll("(?s).*listening on port (\\d+).*", "$1"));
            try (Socket socket = new Socket()) {
                socket.setReceiveBufferSize(64 << 10);
                socket.connect(new java.net.InetSocketAddress("127.0.0.1", port));
                InputStream in = requestRange(socket, "start=k&scope=cluster&ack=" + ack);
                for (int i = 0; i < 100; i++) {
                    expectChunk(in, i, 1, valueBytes);
                }
                nodes.get(1).process.destroyForcibly();
                assertTrue(nodes.get(1).process.waitFor(30, TimeUnit.SECONDS));
                if (ack == 1) {
                    for (int i = 100; i < count; i++) {
                        expectChunk(in, i, 1, valueBytes);
                    }
                    assertEquals(0, readChunk(in).length, "the last chunk: the range is complete");
                } else {
                    IOException cut = assertThrows(IOException.class, () -> {
                        for (int i = 100; i < count; i++) {
                            expectChunk(in, i, 1, valueBytes);
                        }
                        readChunk(in);
                    }, "with ack=2 of 2 the stream must not end as if complete");
                    assertTrue(cut.getMessage().contains("closed"), cut.getMessage());
                }
            }
            assertTrue(nodes.get(0).process.isAlive());
            stopChildren();
            children.clear();
        }
    }

    @Test
    void aFrozenPeerIsLeftAfterTheReplicaTimeoutWhileAckCanBeMetElseTheRangeEndsIn504() throws Exception {
        int count = 3000;
        int valueBytes = 16 << 10;
        // Three nodes that hold every key, as after writes at ack=3 from=3: 48 MB each.
        for (int n = 0; n < 3; n++) {
            write(dir.resolve("node-" + n), count, i -> true, 1, valueBytes);
        }
        // ChildCluster gives each node --replica-timeout-ms 1000, the longest a peer may stay silent.
        try (ChildCluster cluster = new ChildCluster(dir, 3)) {
            TestCluster client = cluster.client(0);
            String firstKeys = "start=k&end=" + key(10) + "&scope=cluster";
            try (Socket socket = new Socket("127.0.0.1", java.net.URI.create(cluster.url(0)).getPort())) {
                socket.setReceiveBufferSize(64 << 10);
                InputStream in = requestRange(socket, "start=k&scope=cluster&ack=2");
                for (int i = 0; i < 100; i++) {
                    expectChunk(in, i, 1, valueBytes);
                }
                cluster.freeze(2);
                // Mid-stream, node 2 goes silent: ack=2 of 3 leaves it behind and streams every key.
                for (int i = 100; i < count; i++) {
                    expectChunk(in, i, 1, valueBytes);
                }
                assertEquals(0, readChunk(in).length, "the last chunk: the range is complete");

                // Before the first key: with ack=3 nothing can be sent, so 504 naming the silent node.
                long began = System.nanoTime();
                HttpResponse<byte[]> refused = client.send(0, "GET", "/v0/entities?" + firstKeys + "&ack=3", null);
                String reason = new String(refused.body(), StandardCharsets.UTF_8);
                assertEquals(504, refused.statusCode(), reason);
                assertTrue(reason.contains(cluster.url(2)) && reason.contains("nothing received"), reason);
                assertTrue(System.nanoTime() - began >= TimeUnit.MILLISECONDS.toNanos(900), "not before the timeout");
                HttpResponse<byte[]> survived = client.send(0, "GET", "/v0/entities?" + firstKeys + "&ack=1", null);
                assertEquals(200, survived.statusCode());
                assertEquals(10 * (key(0).length() + 1 + valueBytes), survived.body().length);
            } finally {
                cluster.thaw(2);
            }
            // Thawed, node 2 streams again (once it has caught up with what queued while it was stopped).
            ChildCluster.await("node 2 streams its range again", () -> {
                HttpResponse<byte[]> whole = client.send(0, "GET", "/v0/entities?" + firstKeys + "&ack=3", null);
                return whole.statusCode() == 200 && whole.body().length == 10 * (key(0).length() + 1 + valueBytes);
            });
        }
    }

    @Test
    void aClusterRangeLargerThanTheHeapOfEveryNode() throws Exception {
        int count = 4800;
        int valueBytes = 32 << 10;
        // node-0: even keys and every third at version 1; node-1: odd keys and every third at version 2.
        write(dir.resolve("node-0"), count, i -> i % 2 == 0 || i % 3 == 0, 1, valueBytes);
        write(dir.resolve("node-1"), count, i -> i % 2 == 1 || i % 3 == 0, 2, valueBytes);
        List<ChildServer> nodes = startTwo("-Xmx64m", valueBytes);
        int port = Integer.parseInt(nodes.get(0).log().replaceAll("(?s).*listening on port (\\d+).*", "$1"));
        long streamed = 0;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            InputStream in = requestRange(socket, "start=k&scope=cluster");
            for (int i = 0; i < count; i++) {
                int version = i % 3 == 0 || i % 2 == 1 ? 2 : 1;
                streamed += expectChunk(in, i, version, valueBytes);
            }
            assertEquals(0, readChunk(in).length, "the last chunk");
        } catch (IOException | AssertionError e) {
            throw new AssertionError("streaming failed; the merging node said:\n" + nodes.get(0).log(), e);
        }
        assertTrue(streamed > 150L << 20, "streamed " + streamed + " bytes");
        for (ChildServer node : nodes) {
            assertTrue(node.process.isAlive());
            assertFalse(node.saidSomethingContaining("OutOfMemoryError"), node.log());
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
        if (in.read() != '\n') {
            throw new IOException("no LF after a chunk size");
        }
        int length = Integer.parseInt(size.toString(), 16);
        byte[] data = in.readNBytes(length);
        if (data.length < length || in.read() != '\r' || in.read() != '\n') {
            throw new IOException("connection closed in a chunk");
        }
        return data;
    }
}
