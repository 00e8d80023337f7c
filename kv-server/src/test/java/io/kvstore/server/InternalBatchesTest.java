package io.kvstore.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.ReplicaOverloadedException;
import io.kvstore.core.Entry;
import io.kvstore.server.wire.BatchCodec;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import io.vertx.core.AsyncResult;
import io.vertx.core.buffer.Buffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batched routes ({@link BatchCodec}) on a real node: each write stored or refused on its own, each
 * read answered with its own version, a malformed body refused whole with nothing stored, and the
 * answers' decoding strict.
 */
class InternalBatchesTest {
    private static final int MAX_KEY_BYTES = 32;
    private static final int MAX_VALUE_BYTES = 1024;

    @TempDir
    Path dir;
    private TestCluster node;

    @BeforeEach
    void start() throws Exception {
        node = new TestCluster(dir, 1, b -> b
                .network(network -> network.maxKeyBytes(MAX_KEY_BYTES).maxBodyBytes(MAX_VALUE_BYTES)));
    }

    @AfterEach
    void stop() throws Exception {
        node.close();
    }

    private java.net.http.HttpResponse<byte[]> post(byte[] body) throws Exception {
        return node.send(0, "POST", Routes.WRITES, body);
    }

    private static byte[] body(Entry... entries) {
        return BatchCodec.writesBody(List.of(entries)).getBytes();
    }

    /** Each write's failure, null for stored. */
    private static List<Throwable> outcomes(int count, java.net.http.HttpResponse<byte[]> answer) {
        return failures(BatchCodec.writeOutcomes(count, answer.statusCode(), Buffer.buffer(answer.body()), "http://node:1"));
    }

    private static <R> List<Throwable> failures(List<AsyncResult<R>> outcomes) {
        List<Throwable> failures = new ArrayList<>();
        outcomes.forEach(outcome -> failures.add(outcome.cause()));
        return failures;
    }

    private String stored(String key) throws Exception {
        var answer = node.send(0, "GET", InternalCodec.readUri(key.getBytes(UTF_8)), null);
        return answer.statusCode() == 404 ? null
                : answer.headers().firstValue(Headers.TOMBSTONE).orElseThrow().equals("true") ? "tombstone"
                : new String(answer.body(), UTF_8);
    }

    private static long now() {
        return System.currentTimeMillis() << 16;
    }

    @Test
    void eachEntryIsStoredOrRefusedOnItsOwn() throws Exception {
        long ts = now();
        long farAhead = (System.currentTimeMillis() + 2 * HybridClock.MAX_AHEAD_MILLIS) << 16;
        Entry[] entries = {
            Entry.value("a".getBytes(UTF_8), "va".getBytes(UTF_8), ts),
            Entry.value(new byte[MAX_KEY_BYTES + 1], "long key".getBytes(UTF_8), ts),
            Entry.value("b".getBytes(UTF_8), new byte[MAX_VALUE_BYTES + 1], ts),
            Entry.value("c".getBytes(UTF_8), "pinned".getBytes(UTF_8), farAhead),
            Entry.tombstone("d".getBytes(UTF_8), ts),
            Entry.value("e".getBytes(UTF_8), "ve".getBytes(UTF_8), ts, System.currentTimeMillis() + 3_600_000),
        };
        var answer = post(body(entries));
        assertEquals(200, answer.statusCode(), new String(answer.body(), UTF_8));
        List<Throwable> outcomes = outcomes(entries.length, answer);
        assertNull(outcomes.get(0));
        assertTrue(outcomes.get(1).getMessage().contains("key of 33 bytes exceeds the limit of 32"), outcomes.get(1).getMessage());
        assertTrue(outcomes.get(2).getMessage().contains("value of 1025 bytes exceeds the limit of 1024"), outcomes.get(2).getMessage());
        assertTrue(outcomes.get(3).getMessage().contains("refused call 3"), outcomes.get(3).getMessage());
        assertNull(outcomes.get(4));
        assertNull(outcomes.get(5));
        assertEquals("va", stored("a"));
        assertNull(stored("b"));
        assertNull(stored("c"), "a timestamp far ahead is refused, as on the entity route");
        assertEquals("tombstone", stored("d"));
        assertEquals("ve", stored("e"));
        var expiring = node.send(0, "GET", InternalCodec.readUri("e".getBytes(UTF_8)), null);
        assertEquals(Long.toString(entries[5].expiresAtMillis()), expiring.headers().firstValue(Headers.EXPIRES).orElseThrow(),
                "the expiry travels with the entry");
    }

    @Test
    void anOlderVersionInABatchDoesNotReplaceANewerOne() throws Exception {
        long ts = now();
        byte[] key = "k".getBytes(UTF_8);
        assertEquals(200, post(body(Entry.value(key, "new".getBytes(UTF_8), ts))).statusCode());
        var answer = post(body(Entry.value(key, "old".getBytes(UTF_8), ts - 1), Entry.value(key, "older".getBytes(UTF_8), ts - 2)));
        assertEquals(200, answer.statusCode());
        assertEquals(Arrays.asList(null, null), outcomes(2, answer),
                "an older version is acknowledged, as on the entity route");
        assertEquals("new", stored("k"));
    }

    @Test
    void aMalformedBodyIsRefusedWholeAndStoresNothing() throws Exception {
        byte[] good = body(Entry.value("x".getBytes(UTF_8), "vx".getBytes(UTF_8), now()),
                Entry.value("y".getBytes(UTF_8), new byte[100], now()));
        List<byte[]> bad = new ArrayList<>();
        bad.add(Arrays.copyOf(good, good.length - 10));                      // truncated in the last value
        bad.add(Arrays.copyOf(good, good.length + 3));                       // bytes past the last entry
        byte[] count = good.clone();
        count[3] = 9;                                                        // more entries announced than sent
        bad.add(count);
        bad.add(new byte[] {0, 0});                                          // not even a count
        bad.add(body(Entry.value("x".getBytes(UTF_8), "vx".getBytes(UTF_8), now())).clone());
        bad.get(4)[9] = (byte) 0x80;                                          // a negative timestamp
        for (byte[] body : bad) {
            var answer = post(body);
            assertEquals(400, answer.statusCode(), new String(answer.body(), UTF_8));
            assertTrue(new String(answer.body(), UTF_8).contains("write batch"), new String(answer.body(), UTF_8));
        }
        assertNull(stored("x"));
        assertNull(stored("y"));
        var empty = post(body());
        assertEquals(200, empty.statusCode());
        assertEquals(List.of(), outcomes(0, empty));
    }

    @Test
    void onlyPostWithinTheBodyLimitIsServed() throws Exception {
        for (String path : List.of(Routes.WRITES, Routes.READS)) {
            var get = node.send(0, "GET", path, null);
            assertEquals(405, get.statusCode(), path);
            assertEquals("POST", get.headers().firstValue("Allow").orElseThrow());
            assertEquals(405, node.send(0, "PUT", path, new byte[4]).statusCode(), path);
            String refused = node.rawHead(0, "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
                    + (BatchCodec.MAX_BODY_BYTES + 1) + "\r\n\r\n");
            assertTrue(refused.startsWith("HTTP/1.1 413 "), path + ": " + refused);
        }
    }

    @Test
    void eachReadIsAnsweredWithItsOwnVersionOrRefusal() throws Exception {
        long ts = now();
        Entry a = Entry.value("a".getBytes(UTF_8), "va".getBytes(UTF_8), ts, System.currentTimeMillis() + 3_600_000);
        Entry gone = Entry.tombstone("gone".getBytes(UTF_8), ts);
        assertEquals(200, post(body(a, gone)).statusCode());
        List<byte[]> keys = List.of("a".getBytes(UTF_8), "absent".getBytes(UTF_8), new byte[MAX_KEY_BYTES + 1],
                "gone".getBytes(UTF_8), "a".getBytes(UTF_8));
        var answer = node.send(0, "POST", Routes.READS, BatchCodec.readsBody(keys).getBytes());
        assertEquals(200, answer.statusCode(), new String(answer.body(), UTF_8));
        List<AsyncResult<Entry>> read = BatchCodec.readOutcomes(keys, 200, Buffer.buffer(answer.body()), "http://node:1");
        assertEquals(a, read.get(0).result(), "the version, its expiry included");
        assertTrue(read.get(1).succeeded());
        assertNull(read.get(1).result(), "a key never written");
        assertTrue(read.get(2).cause().getMessage().contains("key of 33 bytes exceeds the limit of 32"), read.get(2).cause().getMessage());
        assertEquals(gone, read.get(3).result(), "a tombstone is a version too");
        assertEquals(a, read.get(4).result(), "a key asked twice is answered twice");

        for (byte[] bad : List.of(new byte[] {0, 0, 0, 1, 0, 0, 0, 5, 'a'}, new byte[] {0, 0, 0, 2, 0, 0, 0, 0},
                new byte[] {0, 0, 0, 0, 1}, new byte[] {(byte) 0xff, 0, 0, 0},
                new byte[] {0, 0, 0, 1, 0, 0, 0, 0})) { // the last: one read of an empty key, which no store holds
            var refused = node.send(0, "POST", Routes.READS, bad);
            assertEquals(400, refused.statusCode(), new String(refused.body(), UTF_8));
            assertTrue(new String(refused.body(), UTF_8).contains("malformed read batch at offset"), new String(refused.body(), UTF_8));
        }
    }

    @Test
    void answersThatDoNotMatchTheirBatchAreFailuresNamingThePeer() {
        String peer = "http://peer:1";
        byte[] twoDone = BatchCodec.done(BatchCodec.done(BatchCodec.answer(2))).getBytes();
        List<byte[]> wrong = List.of(
                BatchCodec.done(BatchCodec.answer(1)).getBytes(),                 // one outcome of two
                Arrays.copyOf(twoDone, twoDone.length - 1),                          // truncated
                Arrays.copyOf(twoDone, twoDone.length + 1),                          // bytes past them
                new byte[] {0, 0, 0, 2, 0, 7},                                         // an unknown outcome
                new byte[] {0, 0, 0, 2, 0, 1, 0, 0, 0, 99},                            // a reason past the end
                BatchCodec.version(BatchCodec.done(BatchCodec.answer(2)),            // a version, to writes
                        Entry.value("k".getBytes(UTF_8), new byte[0], 1)).getBytes());
        for (byte[] answer : wrong) {
            IllegalStateException failure = assertThrows(IllegalStateException.class,
                    () -> BatchCodec.writeOutcomes(2, 200, Buffer.buffer(answer), peer));
            assertTrue(failure.getMessage().startsWith("POST " + peer + Routes.WRITES + " answered"), failure.getMessage());
        }
        ReplicaOverloadedException overloaded = assertThrows(ReplicaOverloadedException.class,
                () -> BatchCodec.writeOutcomes(2, 503, Buffer.buffer("overloaded"), peer));
        assertEquals("POST " + peer + Routes.WRITES + " answered 503: overloaded", overloaded.getMessage());
        Buffer refusedTwo = BatchCodec.refused(BatchCodec.refused(BatchCodec.answer(2),
                BatchCodec.OVERLOADED + "the storage queue is overloaded"), "too long");
        List<AsyncResult<Void>> refusals = BatchCodec.writeOutcomes(2, 200, refusedTwo, peer);
        assertTrue(refusals.get(0).cause() instanceof ReplicaOverloadedException, "a call refused for want of capacity");
        assertTrue(refusals.get(1).cause() instanceof IllegalStateException
                && !(refusals.get(1).cause() instanceof ReplicaOverloadedException), "any other refusal");
        assertEquals(Arrays.asList(null, null), failures(BatchCodec.writeOutcomes(2, 200, Buffer.buffer(twoDone), peer)));
        byte[] otherKey = BatchCodec.version(BatchCodec.answer(1), Entry.value("other".getBytes(UTF_8), new byte[0], 1)).getBytes();
        IllegalStateException mixedUp = assertThrows(IllegalStateException.class,
                () -> BatchCodec.readOutcomes(List.of("k".getBytes(UTF_8)), 200, Buffer.buffer(otherKey), peer));
        assertTrue(mixedUp.getMessage().contains("a version of another key for read 0"), mixedUp.getMessage());
        assertTrue(BatchCodec.unknownRoute(400, Buffer.buffer("unknown path " + Routes.WRITES)));
        assertFalse(BatchCodec.unknownRoute(400, Buffer.buffer("malformed write batch at offset 4")));
        assertFalse(BatchCodec.unknownRoute(404, null));
    }
}
