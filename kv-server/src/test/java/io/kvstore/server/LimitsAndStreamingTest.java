package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node-wide memory bound for request bodies, and range iterators released whatever the client does. */
@Tag("slow")
class LimitsAndStreamingTest {
    @TempDir
    Path dir;
    TestCluster node;

    @AfterEach
    void stop() throws Exception {
        node.close();
    }

    @Test
    void bodiesBeyondTheNodesMemoryBudgetGet503UntilItIsFreeAgain() throws Exception {
        node = new TestCluster(dir, 1, b -> b
                .network(network -> network.maxBodyBytes(1 << 20).maxBufferedBodyBytes(1 << 20)));
        try (Socket slow = new Socket("127.0.0.1", port())) {
            // A declared 1 MiB body reserves the whole budget while its bytes trickle in.
            OutputStream out = slow.getOutputStream();
            out.write(("PUT /v0/entity?id=slow HTTP/1.1\r\nHost: x\r\nContent-Length: " + (1 << 20) + "\r\n\r\nab")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            HttpResponse<byte[]> refused = awaitPutStatus(503);
            assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
            out.write(new byte[(1 << 20) - 2]);
            out.flush();
            assertEquals("HTTP/1.1 201", new String(slow.getInputStream().readNBytes(12), StandardCharsets.US_ASCII));
        }
        assertEquals(201, node.put(0, "id=after", "x"), "the budget is released once the slow body is stored");
        assertEquals(0, status().getLong("bufferedBodyBytes"));
    }

    @Test
    void aClientThatLeavesMidRangeReleasesTheIterator() throws Exception {
        node = new TestCluster(dir, 1, b -> b);
        byte[] value = new byte[64 << 10];
        Arrays.fill(value, (byte) 'v');
        for (int i = 0; i < 200; i++) { // 12.5 MiB: far more than the socket buffers hold
            assertEquals(201, node.send(0, "PUT", "/v0/entity?id=k" + (1000 + i), value).statusCode());
        }
        try (Socket reader = new Socket("127.0.0.1", port())) {
            reader.setReceiveBufferSize(4096);
            reader.getOutputStream().write("GET /v0/entities?start=k HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = reader.getInputStream();
            assertEquals("HTTP/1.1 200", new String(in.readNBytes(12), StandardCharsets.US_ASCII));
            in.readNBytes(100_000);
            assertEquals(1, status().getInteger("openRangeIterators"), "the stream waits for the slow client");
        }
        awaitOpenRangeIterators(0);
        String whole = new String(node.send(0, "GET", "/v0/entities?start=k", null).body(), StandardCharsets.ISO_8859_1);
        assertEquals(200 * (6 + value.length), whole.length(), "a full read after the abandoned one");
        awaitOpenRangeIterators(0);
    }

    @Test
    void idleAndStalledConnectionsAreClosed() throws Exception {
        node = new TestCluster(dir, 1, b -> b.network(network -> network.idleTimeout(java.time.Duration.ofMillis(300))));
        try (Socket idle = new Socket("127.0.0.1", port()); Socket stalled = new Socket("127.0.0.1", port())) {
            idle.setSoTimeout(10_000);
            stalled.setSoTimeout(10_000);
            stalled.getOutputStream().write("GET /v0/entity?id=k HTTP/1.1\r\nHo".getBytes(StandardCharsets.US_ASCII));
            stalled.getOutputStream().flush();
            assertEquals(-1, idle.getInputStream().read(), "a connection that sends nothing is closed");
            assertEquals(-1, stalled.getInputStream().read(), "a request that stops half-way is closed");
        }
        assertEquals(404, node.get(0, "id=k").statusCode(), "everyone else is still served");
    }

    @Test
    void requestsTrickledSlowerThanTheDeadlineAreCutOffAndQuickOnesAreNot() throws Exception {
        // The idle timeout never fires on a byte every 50 ms; the whole request takes too long.
        node = new TestCluster(dir, 1, b -> b
                .network(network -> network.requestTimeout(java.time.Duration.ofMillis(300)).idleTimeout(java.time.Duration.ofMillis(300))));
        // Trickled headers: Vert.x's idle timeout (which counts whole messages, not bytes) or the guard.
        long headers = trickleUntilClosed("GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nX-Slow: ");
        long closedByGuard = status().getLong("slowConnectionsClosed");
        // A trickled body: each piece is a message to Vert.x, so only the guard can cut it.
        long body = trickleUntilClosed("PUT /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
        assertEquals(closedByGuard + 1, status().getLong("slowConnectionsClosed"));
        for (long millis : new long[] {headers, body}) {
            assertTrue(millis >= 300 && millis < 5_000, "closed after " + millis + " ms");
        }
        assertEquals(404, node.get(0, "id=k").statusCode(), "the cut-off body stored nothing");
        // One connection, a request every 100 ms for 1 s: each within the deadline, the whole far beyond it.
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(10_000);
            for (int i = 0; i < 10; i++) {
                socket.getOutputStream().write("GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                String head = TestCluster.readHead(socket.getInputStream()).toLowerCase(java.util.Locale.ROOT);
                assertTrue(head.startsWith("http/1.1 404"), head);
                int length = Integer.parseInt(head.replaceAll("(?s).*content-length: (\\d+).*", "$1"));
                assertEquals(length, socket.getInputStream().readNBytes(length).length);
                Thread.sleep(100);
            }
        }
        assertEquals(closedByGuard + 1, status().getLong("slowConnectionsClosed"), "the quick connection was not cut");
    }

    @Test
    void aResponseThatTakesLongerThanTheRequestTimeoutIsNotCutAndHttp2IsNotOffered() throws Exception {
        node = new TestCluster(dir, 1, b -> b.network(network -> network.requestTimeout(java.time.Duration.ofMillis(200))));
        byte[] value = new byte[100_000];
        Arrays.fill(value, (byte) 'v');
        for (int i = 0; i < 300; i++) { // 30 MB: more than sockets and the HTTP/2 window hold
            assertEquals(201, node.send(0, "PUT", String.format("/v0/entity?id=k%05d", i), value).statusCode());
        }
        for (HttpClient.Version version : new HttpClient.Version[] {HttpClient.Version.HTTP_1_1, HttpClient.Version.HTTP_2}) {
            HttpClient client = HttpClient.newBuilder().version(version).build();
            URI base = URI.create("http://127.0.0.1:" + port());
            // A client asking to upgrade to HTTP/2 (h2c) is answered in HTTP/1.1, the protocol's version.
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(base.resolve("/v0/entity?id=k00000")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_1_1, first.version());
            HttpResponse<InputStream> range = client.send(HttpRequest.newBuilder(base.resolve("/v0/entities?start=k")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            long began = System.nanoTime();
            long bytes = 0;
            try (InputStream in = range.body()) {
                byte[] buffer = new byte[64 << 10];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    bytes += n;
                    // Read at 30 MB/s: the response lasts about a second, five request timeouts.
                    while (bytes > (System.nanoTime() - began) / 1_000_000 * 30_000) {
                        Thread.sleep(1);
                    }
                    if (bytes > (8 << 20) && bytes - n <= (8 << 20)) {
                        // Midway, a quick request on another connection of the client's pool.
                        assertEquals(200, client.send(HttpRequest.newBuilder(base.resolve("/v0/entity?id=k00001")).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode());
                    }
                }
            }
            long millis = (System.nanoTime() - began) / 1_000_000;
            assertEquals(300L * (6 + 1 + value.length), bytes, version + ": every entry, after " + millis + " ms");
            assertTrue(millis > 400, version + ": the stream outlived the request timeout (" + millis + " ms)");
        }
        assertEquals(0, status().getLong("slowConnectionsClosed"));
    }

    /** Sends {@code start}, then one byte every 50 ms until the server closes; returns how long that took. */
    private long trickleUntilClosed(String start) throws Exception {
        long began = System.nanoTime(); // before the server accepts, so never after its clock starts
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(start.getBytes(StandardCharsets.US_ASCII));
            Thread trickler = new Thread(() -> {
                try {
                    while (true) {
                        Thread.sleep(50);
                        out.write('a');
                        out.flush();
                    }
                } catch (Exception closed) {
                    // the server closed the connection, or the test did
                }
            });
            trickler.start();
            try {
                assertEquals(-1, socket.getInputStream().read(), "closed without an answer");
            } catch (java.net.SocketException reset) {
                // closed while bytes were still arriving: a reset is a close too
            }
            long millis = (System.nanoTime() - began) / 1_000_000;
            socket.close();
            trickler.join(10_000);
            return millis;
        }
    }

    private void awaitOpenRangeIterators(int expected) throws Exception {
        // The iterator is closed on a worker after the connection's close event: poll the status a bounded number of times.
        int last = -1;
        for (int attempt = 0; attempt < 500; attempt++) {
            last = status().getInteger("openRangeIterators");
            if (last == expected) {
                return;
            }
        }
        throw new AssertionError("open range iterators stayed at " + last + ", expected " + expected);
    }

    private HttpResponse<byte[]> awaitPutStatus(int status) throws Exception {
        // The slow request reaches the server asynchronously; a bounded number of attempts covers the race.
        HttpResponse<byte[]> response = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            response = node.send(0, "PUT", "/v0/entity?id=probe", new byte[] {1});
            if (response.statusCode() == status) {
                return response;
            }
        }
        throw new AssertionError("never answered " + status + ", last " + response.statusCode());
    }

    @Test
    void theEventLoopsRunOnTheNativeTransportByDefaultAndOnNioWhenAsked() throws Exception {
        // The server jar ships Netty's epoll library for Linux x86_64 and aarch64, the machines CI runs on.
        Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux"), "epoll is Linux only");
        node = new TestCluster(dir.resolve("native"), 1, b -> b);
        assertEquals("native", status().getString("transport"));
        node.close();
        node = new TestCluster(dir.resolve("nio"), 1, b -> b.network(network -> network.nativeTransport(false)));
        assertEquals("nio", status().getString("transport"));
        assertEquals(201, node.put(0, "id=k", "v"));
    }

    private JsonObject status() throws Exception {
        HttpResponse<byte[]> response = node.send(0, "GET", "/v0/status", null);
        assertEquals(200, response.statusCode());
        return new JsonObject(new String(response.body(), StandardCharsets.UTF_8));
    }

    private int port() {
        return java.net.URI.create(node.url(0)).getPort();
    }
}
