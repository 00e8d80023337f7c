package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.RangeFrames;
import io.vertx.core.buffer.Buffer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ttl} on PUT, over real sockets: refused where it does not belong, expiring on every replica alike. */
@Tag("slow")
class TtlTest {
    private static final long AWAIT_MILLIS = 20_000;

    @TempDir
    Path dir;

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static String internalKey(String key) {
        return InternalCodec.encodeKey(key.getBytes(StandardCharsets.UTF_8));
    }

    /** Polls {@code node}'s GET of {@code id} until it answers 404; returns when, in System.currentTimeMillis. */
    private static long awaitGone(TestCluster cluster, int node, String id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(AWAIT_MILLIS);
        while (cluster.get(node, "id=" + id).statusCode() != 404) {
            assertTrue(System.nanoTime() < deadline, id + " did not expire on node " + node + " within " + AWAIT_MILLIS + " ms");
            Thread.sleep(50);
        }
        return System.currentTimeMillis();
    }

    @Test
    void badTtlsAre400AndNothingIsStored() throws Exception {
        TestCluster node = new TestCluster(dir, 1);
        try {
            for (String ttl : new String[] {"0", "-1", "+5", "", "abc", "1.5", "1e3", " 5", "3153600001", "99999999999",
                    "18446744073709551617"}) {
                HttpResponse<byte[]> refused = node.send(0, "PUT", "/v0/entity?id=bad&ttl=" + TestCluster.percentEncode(ttl),
                        "v".getBytes(StandardCharsets.UTF_8));
                assertEquals(400, refused.statusCode(), "ttl '" + ttl + "'");
                assertTrue(text(refused).contains("ttl must be a whole number of seconds in [1, 3153600000]"), text(refused));
            }
            assertEquals(404, node.get(0, "id=bad").statusCode(), "a refused PUT stores nothing");
            HttpResponse<byte[]> onGet = node.get(0, "id=bad&ttl=5");
            assertEquals(400, onGet.statusCode());
            assertTrue(text(onGet).contains("ttl applies to PUT only, not to GET"), text(onGet));
            HttpResponse<byte[]> onDelete = node.send(0, "DELETE", "/v0/entity?id=bad&ttl=5", null);
            assertEquals(400, onDelete.statusCode());
            assertTrue(text(onDelete).contains("ttl applies to PUT only, not to DELETE"), text(onDelete));
            assertEquals(201, node.put(0, "id=longest&ttl=3153600000", "v"), "the longest ttl is accepted");
            assertEquals(200, node.get(0, "id=longest").statusCode());
            assertEquals(400, node.send(0, "PUT", "/internal/v0/entity?key=AA&ts=1&exp=x", new byte[] {1}).statusCode(),
                    "a malformed internal expiry");
            assertEquals(400, node.send(0, "PUT", "/internal/v0/entity?key=AA&ts=1&exp=0", new byte[] {1}).statusCode(),
                    "a non-positive internal expiry");
            assertEquals(400, node.send(0, "PUT", "/internal/v0/entity?key=AA&ts=1&exp=+5", new byte[] {1}).statusCode(),
                    "a signed internal expiry");
            assertEquals(400, node.send(0, "PUT", "/internal/v0/entity?key=AA&ts=+1", new byte[] {1}).statusCode(),
                    "a signed internal timestamp");
        } finally {
            node.close();
        }
    }

    @Test
    void aValueWithATtlExpiresStaysGoneAcrossARestartAndIsReplacedByAPlainPut() throws Exception {
        TestCluster node = new TestCluster(dir, 1);
        try {
            long before = System.currentTimeMillis();
            assertEquals(201, node.put(0, "id=short&ttl=2", "brief"));
            assertEquals(201, node.put(0, "id=renewed&ttl=2", "brief"));
            assertEquals(201, node.put(0, "id=renewed", "for good"));
            assertEquals(201, node.put(0, "id=plain", "kept"));
            HttpResponse<byte[]> visible = node.get(0, "id=short");
            long readAt = System.currentTimeMillis();
            if (readAt - before < 2000) {
                assertEquals(200, visible.statusCode(), "visible before its ttl");
                assertEquals("brief", text(visible));
            }
            long gone = awaitGone(node, 0, "short");
            assertTrue(gone - before >= 2000, "expired after " + (gone - before) + " ms, before its ttl of 2 s");
            String range = node.localRange(0);
            assertFalse(range.contains("short\n"), range);
            assertTrue(range.contains("plain\nkept") && range.contains("renewed\nfor good"), range);
            assertEquals("for good", text(node.get(0, "id=renewed")), "a PUT without ttl replaces the expiring value");

            node.stop(0);
            node.start(0);
            assertEquals(404, node.get(0, "id=short").statusCode(), "still expired after a restart");
            assertEquals("kept", text(node.get(0, "id=plain")));
            assertEquals("for good", text(node.get(0, "id=renewed")));
            assertEquals(201, node.put(0, "id=short", "again"));
            assertEquals("again", text(node.get(0, "id=short")), "a later PUT writes the key again");
        } finally {
            node.close();
        }
    }

    @Test
    void theExpiryReachesEveryReplicaAndTheKeyExpiresOnAll() throws Exception {
        TestCluster cluster = new TestCluster(dir, 3);
        try {
            long before = System.currentTimeMillis();
            assertEquals(201, cluster.put(0, "id=hour&ttl=3600&ack=3", "an hour"));
            long after = System.currentTimeMillis();
            assertEquals(201, cluster.put(1, "id=short&ttl=2&ack=3", "brief"));
            long expiresAt = -1;
            for (int i = 0; i < 3; i++) {
                HttpResponse<byte[]> internal = cluster.send(i, "GET", "/internal/v0/entity?key=" + internalKey("hour"), null);
                assertEquals(200, internal.statusCode(), "node " + i);
                assertEquals("an hour", text(internal));
                String header = internal.headers().firstValue(Headers.EXPIRES).orElse(null);
                assertNotNull(header, "node " + i + " holds the value with its expiry");
                long expiry = Long.parseLong(header);
                assertTrue(expiry >= before + 3_600_000 && expiry <= after + 3_600_000, "expiry " + expiry + " on node " + i);
                assertTrue(expiresAt == -1 || expiresAt == expiry, "every replica holds the coordinator's expiry");
                expiresAt = expiry;

                HttpResponse<byte[]> frames = cluster.send(i, "GET", "/internal/v0/entities?start=" + internalKey("hour")
                        + "&end=" + internalKey("hour\u0000"), null);
                RangeFrames.Decoder decoder = new RangeFrames.Decoder(cluster.url(i), 100, 100);
                decoder.feed(Buffer.buffer(frames.body()));
                Entry framed = decoder.poll();
                assertNotNull(framed, "node " + i + " streams the key");
                assertEquals(expiry, framed.expiresAtMillis(), "the range frames carry the expiry");
                assertTrue(decoder.ended());
            }

            awaitGone(cluster, 1, "short");
            for (int i = 0; i < 3; i++) {
                assertEquals(404, cluster.get(i, "id=short&ack=1&from=1").statusCode(), "node " + i);
                HttpResponse<byte[]> internal = cluster.send(i, "GET", "/internal/v0/entity?key=" + internalKey("short"), null);
                assertEquals(200, internal.statusCode());
                assertEquals("true", internal.headers().firstValue(Headers.TOMBSTONE).orElse(null),
                        "node " + i + " reads the expired value as a tombstone");
                assertFalse(cluster.localRange(i).contains("short\n"), "node " + i);
                String clusterRange = text(cluster.send(i, "GET", "/v0/entities?start=a&scope=cluster", null));
                assertFalse(clusterRange.contains("short\n"), clusterRange);
                assertTrue(clusterRange.contains("hour\nan hour"), clusterRange);
            }
        } finally {
            cluster.close();
        }
    }
}
