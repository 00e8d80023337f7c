package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every rule of the protocol on one node, over real sockets. */
class SingleNodeTest {
    @TempDir
    Path dir;
    TestCluster node;

    @BeforeEach
    void start() throws Exception {
        node = new TestCluster(dir, 1, b -> b.network(network -> network.maxBodyBytes(5 << 20).maxKeyBytes(1000)));
    }

    @AfterEach
    void stop() throws Exception {
        node.close();
    }

    @Test
    void putGetDeleteFollowTheProtocol() throws Exception {
        assertEquals(404, node.get(0, "id=k").statusCode());
        assertEquals(201, node.put(0, "id=k", "v1"));
        HttpResponse<byte[]> got = node.get(0, "id=k");
        assertEquals(200, got.statusCode());
        assertEquals("v1", new String(got.body(), StandardCharsets.UTF_8));
        assertEquals(201, node.put(0, "id=k", "v2"));
        assertEquals("v2", new String(node.get(0, "id=k").body(), StandardCharsets.UTF_8));
        assertEquals(202, node.delete(0, "id=k"));
        assertEquals(404, node.get(0, "id=k").statusCode());
        assertEquals(202, node.delete(0, "id=never-written"));
        assertEquals(201, node.put(0, "id=k", "back"));
        assertEquals("back", new String(node.get(0, "id=k").body(), StandardCharsets.UTF_8));
    }

    @Test
    void emptyValueIsStoredAndReturned() throws Exception {
        assertEquals(201, node.put(0, "id=empty", ""));
        HttpResponse<byte[]> got = node.get(0, "id=empty");
        assertEquals(200, got.statusCode());
        assertEquals(0, got.body().length);
    }

    @Test
    void badRequestsGet400() throws Exception {
        assertEquals(400, node.get(0, "").statusCode(), "missing id");
        assertEquals(400, node.get(0, "id=").statusCode(), "empty id");
        assertEquals(400, node.get(0, "id=k&ack=2").statusCode(), "ack above cluster size");
        assertEquals(400, node.get(0, "id=k&from=0").statusCode());
        assertEquals(400, node.get(0, "id=k&ack=x").statusCode());
        assertTrue(node.raw(0, "GET /v0/entity?id=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .startsWith("HTTP/1.1 400"), "bad percent-encoding");
        assertEquals(400, node.get(0, "id=" + "k".repeat(1001)).statusCode(), "key over the limit");
        assertEquals(400, node.send(0, "GET", "/v0/unknown", null).statusCode());
        assertEquals(400, node.send(0, "GET", "/", null).statusCode());
        assertEquals(400, node.send(0, "GET", "/v0/entities", null).statusCode(), "missing start");
        assertEquals(400, node.send(0, "GET", "/v0/entities?start=", null).statusCode(), "empty start");
        assertEquals(400, node.send(0, "GET", "/internal/v0/entity?key=***", null).statusCode(), "bad internal key");
        assertEquals(400, node.send(0, "PUT", "/internal/v0/entity?key=AA&ts=x", new byte[] {1}).statusCode(), "bad timestamp");
        assertTrue(node.raw(0, "GET /v0/entity?id=k%2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .startsWith("HTTP/1.1 400"), "truncated escape");
        assertEquals(400, node.get(0, "id=k&from=").statusCode(), "empty from");
        assertTrue(node.raw(0, "GET /v0/entity?id=k HTTP/1.1\r\nConnection: close\r\n\r\n")
                .startsWith("HTTP/1.1 400"), "an HTTP/1.1 request without Host (RFC 9112 3.2)");
        assertTrue(node.raw(0, "GET /v0/entity?id=k HTTP/1.0\r\n\r\n").startsWith("HTTP/1.0 404"), "HTTP/1.0 needs none");
    }

    @Test
    void otherMethodsGet405() throws Exception {
        assertEquals(405, node.send(0, "POST", "/v0/entity?id=k", new byte[] {1}).statusCode());
        assertEquals(405, node.send(0, "PATCH", "/v0/entity?id=k", new byte[] {1}).statusCode());
        assertEquals(405, node.send(0, "PUT", "/v0/entities?start=a", new byte[] {1}).statusCode());
    }

    @Test
    void percentEncodedAndNonAsciiIdsAreTheirUtf8Bytes() throws Exception {
        String id = "ключ/with space&amp;?=#%+";
        String query = "id=" + TestCluster.percentEncode(id);
        assertEquals(201, node.put(0, query, "unicode"));
        assertEquals("unicode", new String(node.get(0, query).body(), StandardCharsets.UTF_8));
        assertEquals(404, node.get(0, "id=" + TestCluster.percentEncode("ключ")).statusCode());
        String range = node.localRange(0);
        assertTrue(range.startsWith(id + "\n"), range);
    }

    @Test
    void plusIsAPlusSignNotASpace() throws Exception {
        assertEquals(201, node.put(0, "id=a+b", "plus"));
        assertEquals(404, node.get(0, "id=a%20b").statusCode());
        assertEquals("plus", new String(node.get(0, "id=a%2Bb").body(), StandardCharsets.UTF_8));
    }

    @Test
    void idsThatAreNotUtf8StayDistinctKeys() throws Exception {
        assertEquals(201, node.put(0, "id=%FE", "fe"));
        assertEquals(201, node.put(0, "id=%FF", "ff"));
        assertEquals("fe", new String(node.get(0, "id=%fe").body(), StandardCharsets.UTF_8));
        assertEquals("ff", new String(node.get(0, "id=%ff").body(), StandardCharsets.UTF_8));
        HttpResponse<byte[]> range = node.send(0, "GET", "/v0/entities?start=%FE", null);
        assertArrayEquals(new byte[] {(byte) 0xFE, '\n', 'f', 'e', (byte) 0xFF, '\n', 'f', 'f'}, range.body());
    }

    @Test
    void rawNonAsciiInTheRequestLineIsRefusedNotGuessed() throws Exception {
        URI uri = URI.create(node.url(0));
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.getOutputStream().write(("GET /v0/entity?id=" + "ключ" + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            String answer = new String(readAll(socket.getInputStream()), StandardCharsets.ISO_8859_1);
            assertTrue(answer.startsWith("HTTP/1.1 400"), answer);
        }
    }

    @Test
    void binaryValuesWithEveryByteRoundTrip() throws Exception {
        byte[] all = new byte[256 * 4];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        assertEquals(201, node.send(0, "PUT", "/v0/entity?id=bin", all).statusCode());
        assertArrayEquals(all, node.get(0, "id=bin").body());
    }

    @Test
    void fourMebibyteValuesRoundTripAndLargerBodiesGet413() throws Exception {
        byte[] big = new byte[4 << 20];
        new Random(3).nextBytes(big);
        assertEquals(201, node.send(0, "PUT", "/v0/entity?id=big", big).statusCode());
        assertArrayEquals(big, node.get(0, "id=big").body());
        // Refused on the declared length alone: not one byte of the body is sent.
        String refused = node.rawHead(0, "PUT /v0/entity?id=huge HTTP/1.1\r\nHost: x\r\nContent-Length: " + (6 << 20) + "\r\n\r\n");
        assertTrue(refused.startsWith("HTTP/1.1 413"), refused);
        // A client that writes the whole body before it reads (as Python's http.client does) still gets the
        // answer: the node reads and drops the rest of the body before it closes, where closing at once
        // made the kernel reset the connection under the client's writes.
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(("PUT /v0/entity?id=huge HTTP/1.1\r\nHost: x\r\nContent-Length: " + (32 << 20) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[1 << 20];
            for (int i = 0; i < 32; i++) {
                out.write(chunk);
            }
            out.flush();
            assertTrue(TestCluster.readHead(socket.getInputStream()).startsWith("HTTP/1.1 413 "));
        }
        assertEquals(404, node.get(0, "id=huge").statusCode(), "nothing of a refused body is stored");
        assertEquals(200, node.get(0, "id=big").statusCode(), "the node keeps serving");
    }

    @Test
    void expectContinueIsAnsweredBeforeTheBodyIsSentAndARefusalComesInsteadOfIt() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(10_000); // a server that never sends the 100 fails here, not by hanging
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write("PUT /v0/entity?id=expected HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertTrue(TestCluster.readHead(in).startsWith("HTTP/1.1 100 "), "100 Continue before a byte of the body");
            out.write("hello".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertTrue(TestCluster.readHead(in).startsWith("HTTP/1.1 201 "));
        }
        assertEquals("hello", new String(node.get(0, "id=expected").body(), StandardCharsets.UTF_8));

        String tooLarge = node.rawHead(0, "PUT /v0/entity?id=huge HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: "
                + (6 << 20) + "\r\n\r\n");
        assertTrue(tooLarge.startsWith("HTTP/1.1 413 "), "refused without a 100, the body never sent: " + tooLarge);
        String unknown = node.raw(0, "PUT /v0/entity?id=odd HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\nab");
        assertTrue(unknown.startsWith("HTTP/1.1 417 "), unknown);
        String http10 = node.raw(0, "PUT /v0/entity?id=old HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nab");
        assertTrue(http10.startsWith("HTTP/1.0 201 "), "no 100 to an HTTP/1.0 client: " + http10);
        assertEquals(404, node.get(0, "id=huge").statusCode());
        assertEquals(404, node.get(0, "id=odd").statusCode());
        assertEquals("ab", new String(node.get(0, "id=old").body(), StandardCharsets.UTF_8));
    }

    @Test
    void aStrayPercentSignIsA400AndHoldsNoRequestSlot() throws Exception {
        node.close();
        node = new TestCluster(dir.resolve("limited"), 1, b -> b.network(network -> network.maxInFlight(2)));
        for (String target : new String[] {"/v0/entity?id=a%", "/v0/entity?id=ab%", "/v0/entity?id=%41%",
                "/v0/entities?start=a%", "/v0/entity?id=k&ack=1%"}) {
            String answer = node.raw(0, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 400 "), target + ": " + answer);
        }
        assertEquals(404, node.get(0, "id=k").statusCode(), "every slot was given back: not 503");
    }

    @Test
    void nothingSentAfterARefusedRequestOnItsConnectionIsServed() throws Exception {
        assertEquals(201, node.put(0, "id=victim", "still here"));
        String pipelined = "PUT /v0/entity?id=after HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                + "DELETE /v0/entity?id=victim HTTP/1.1\r\nHost: x\r\n\r\n";
        // The whole refused body is sent, so the node, which reads and drops it, closes once it ends.
        String tooLarge = node.raw(0, "PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: " + ((5 << 20) + 1)
                + "\r\n\r\n" + "x".repeat((5 << 20) + 1) + pipelined);
        String oddExpectation = node.raw(0, "PUT /v0/entity?id=odd HTTP/1.1\r\nHost: x\r\nExpect: x\r\nContent-Length: 2\r\n\r\nab"
                + pipelined);
        for (String answer : new String[] {tooLarge, oddExpectation}) {
            assertTrue(answer.matches("(?s)HTTP/1.1 41[37] .*"), answer);
            assertEquals(1, answer.split("HTTP/1.1 ", -1).length - 1, "one answer, then the connection is closed: " + answer);
        }
        assertEquals(404, node.get(0, "id=after").statusCode());
        assertEquals("still here", new String(node.get(0, "id=victim").body(), StandardCharsets.UTF_8));
    }

    @Test
    void aBodyFramedByAnythingButAFinalChunkedIsRefusedAndNeverReadAsARequest() throws Exception {
        assertEquals(201, node.put(0, "id=victim", "still here"));
        String smuggled = "DELETE /v0/entity?id=victim HTTP/1.1\r\nHost: x\r\n\r\n";
        for (String coding : new String[] {"identity", "gzip", "chunked, gzip", "xchunked"}) {
            // Chunked framing for a decoder that sees chunked in it, none for one that does not.
            String answer = node.raw(0, "PUT /v0/entity?id=x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + coding
                    + "\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + smuggled);
            assertTrue(answer.startsWith("HTTP/1.1 400 "), coding + ": " + answer);
            assertEquals(1, answer.split("HTTP/1.1 ", -1).length - 1, coding + ": " + answer);
        }
        String gzipped = node.raw(0, "PUT /v0/entity?id=x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                + "3\r\nabc\r\n0\r\n\r\n" + smuggled);
        assertTrue(gzipped.startsWith("HTTP/1.1 501 "), gzipped);
        assertEquals(404, node.get(0, "id=x").statusCode());
        assertEquals("still here", new String(node.get(0, "id=victim").body(), StandardCharsets.UTF_8));
        String chunked = node.raw(0, "PUT /v0/entity?id=x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n"
                + "Connection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        assertTrue(chunked.startsWith("HTTP/1.1 201 "), chunked);
    }

    @Test
    void theInternalRouteRefusesTimestampsFarAheadAndKeysOverTheLimitAndMovesTheClockOnlyForStoredWrites() throws Exception {
        String victim = Routes.INTERNAL_ENTITY + "?key=" + InternalCodec.encodeKey("victim".getBytes(StandardCharsets.UTF_8));
        long farAhead = (System.currentTimeMillis() + 2 * io.kvstore.cluster.HybridClock.MAX_AHEAD_MILLIS) << 16;
        for (long ts : new long[] {Long.MAX_VALUE, farAhead}) {
            assertEquals(400, node.send(0, "PUT", victim + "&ts=" + ts, "pinned".getBytes(StandardCharsets.UTF_8)).statusCode());
            assertEquals(400, node.send(0, "DELETE", victim + "&ts=" + ts, null).statusCode());
        }
        // Refused on its body: the timestamp it carried must not move the clock either.
        long aheadButAccepted = farAhead - (3 * io.kvstore.cluster.HybridClock.MAX_AHEAD_MILLIS << 16) / 2;
        String refused = node.rawHead(0, "PUT " + victim + "&ts=" + aheadButAccepted + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
                + (6 << 20) + "\r\n\r\n");
        assertTrue(refused.startsWith("HTTP/1.1 413 "), refused);
        assertEquals(201, node.put(0, "id=victim", "good"));
        assertEquals(202, node.delete(0, "id=victim"));
        assertEquals(404, node.get(0, "id=victim").statusCode(), "the client's own writes win");
        assertEquals(201, node.put(0, "id=victim", "again"));
        long stored = Long.parseLong(node.send(0, "GET", victim, null).headers().firstValue(Headers.TIMESTAMP).orElseThrow());
        assertTrue(stored >> 16 <= System.currentTimeMillis() + 1_000, "the clock was not dragged ahead: " + (stored >> 16));

        String longKey = Routes.INTERNAL_ENTITY + "?key=" + InternalCodec.encodeKey(new byte[1001]);
        assertEquals(400, node.send(0, "PUT", longKey + "&ts=1", new byte[] {1}).statusCode(), "the key limit holds here too");
        assertEquals(400, node.send(0, "GET", longKey, null).statusCode());
    }

    @Test
    void aChunkedBodyOverTheLimitIsRefusedWhileStreaming() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("PUT /v0/entity?id=chunky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[1 << 20];
            String status = null;
            for (int i = 0; i < 8 && status == null; i++) {
                out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                try {
                    out.write(chunk);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (java.io.IOException closedByServer) {
                    break;
                }
            }
            status = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 413", status);
        }
        assertEquals(404, node.get(0, "id=chunky").statusCode());
    }

    @Test
    void tooManyRequestsInFlightGet503WithRetryAfter() throws Exception {
        node.close();
        node = new TestCluster(dir.resolve("limited"), 1, b -> b.network(network -> network.maxInFlight(1)));
        try (Socket slow = new Socket("127.0.0.1", port())) {
            // A PUT whose body never completes keeps one request in flight.
            slow.getOutputStream().write("PUT /v0/entity?id=slow HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"
                    .getBytes(StandardCharsets.US_ASCII));
            slow.getOutputStream().flush();
            HttpResponse<byte[]> refused = awaitStatus(503);
            assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
        }
    }

    private HttpResponse<byte[]> awaitStatus(int status) throws Exception {
        // The slow request reaches the server asynchronously; a few attempts bound the race.
        HttpResponse<byte[]> response = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            response = node.get(0, "id=x");
            if (response.statusCode() == status) {
                return response;
            }
        }
        throw new AssertionError("never answered " + status + ", last " + response.statusCode());
    }

    @Test
    void dataSurvivesARestart() throws Exception {
        for (int i = 0; i < 500; i++) {
            assertEquals(201, node.put(0, "id=key" + i, "value" + i));
        }
        assertEquals(202, node.delete(0, "id=key7"));
        node.stop(0);
        node.start(0);
        for (int i = 0; i < 500; i++) {
            HttpResponse<byte[]> got = node.get(0, "id=key" + i);
            if (i == 7) {
                assertEquals(404, got.statusCode());
            } else {
                assertEquals("value" + i, new String(got.body(), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void rangeStreamsSortedEntriesInBoundsWithoutTombstonesOneChunkEach() throws Exception {
        for (String k : new String[] {"b", "a", "d", "c", "e"}) {
            assertEquals(201, node.put(0, "id=" + k, "v" + k));
        }
        assertEquals(202, node.delete(0, "id=c"));
        assertEquals("b\nvbd\nvd", body("/v0/entities?start=b&end=e"));
        assertEquals("d\nvde\nve", body("/v0/entities?start=cc"));
        assertEquals("", body("/v0/entities?start=x"));
        // The raw bytes: chunked encoding, one chunk per entry, then the last chunk.
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.getOutputStream().write("GET /v0/entities?start=a&end=c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String raw = new String(readAll(socket.getInputStream()), StandardCharsets.UTF_8);
            assertTrue(raw.startsWith("HTTP/1.1 200"), raw);
            assertTrue(raw.toLowerCase().contains("transfer-encoding: chunked"), raw);
            String body = raw.substring(raw.indexOf("\r\n\r\n") + 4);
            assertEquals("4\r\na\nva\r\n4\r\nb\nvb\r\n0\r\n\r\n", body);
        }
    }

    @Test
    void malformedHttpIsRefusedAndTheNodeKeepsServing() throws Exception {
        for (String garbage : new String[] {"NONSENSE\r\n\r\n", "GET /v0/entity?id=a HTTP/9.9\r\n\r\n",
                "GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(40_000) + "\r\n\r\n"}) {
            try (Socket socket = new Socket("127.0.0.1", port())) {
                socket.getOutputStream().write(garbage.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                byte[] answer = readUntilClosedOrReset(socket.getInputStream());
                String text = new String(answer, StandardCharsets.US_ASCII);
                assertTrue(answer.length == 0 || text.startsWith("HTTP/") && !text.matches("(?s)HTTP/\\S+ 2.*"), text);
            }
        }
        assertEquals(201, node.put(0, "id=after", "ok"));
    }

    private String body(String pathAndQuery) throws Exception {
        HttpResponse<byte[]> response = node.send(0, "GET", pathAndQuery, null);
        assertEquals(200, response.statusCode());
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private int port() {
        return java.net.URI.create(node.url(0)).getPort();
    }

    /**
     * What the server sent before closing. A server that closes with request bytes still unread (the
     * rest of a 40 KB header) makes the kernel send a reset, which may discard its answer: that is a
     * closed connection too.
     */
    private static byte[] readUntilClosedOrReset(InputStream in) throws java.io.IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (java.net.SocketException e) {
            if (!String.valueOf(e.getMessage()).contains("reset")) {
                throw e;
            }
        }
        return out.toByteArray();
    }

    private static byte[] readAll(InputStream in) throws java.io.IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
    }
}
