package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.RangeFrames;
import io.vertx.core.buffer.Buffer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET /v0/entities?scope=cluster on in-process nodes: merge, versions, tombstones, ack, validation. */
class ClusterRangeTest {
    @TempDir
    Path dir;
    TestCluster cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private String clusterRange(int node, String query) throws Exception {
        HttpResponse<byte[]> response = cluster.send(node, "GET", "/v0/entities?scope=cluster&" + query, null);
        assertEquals(200, response.statusCode(), () -> new String(response.body(), StandardCharsets.UTF_8));
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    /** Writes a version straight into one node's store through the internal route. */
    private void putOn(int node, String key, String value, long timestamp) throws Exception {
        String uri = "/internal/v0/entity?key=" + InternalCodec.encodeKey(b(key)) + "&ts=" + timestamp;
        int status = value == null ? cluster.send(node, "DELETE", uri, null).statusCode()
                : cluster.send(node, "PUT", uri, b(value)).statusCode();
        assertEquals(value == null ? 202 : 201, status);
    }

    @Test
    void keysWrittenOneOfOneToDifferentNodesAppearOnceAndInOrder() throws Exception {
        cluster = new TestCluster(dir, 3);
        TreeMap<String, String> expected = new TreeMap<>();
        for (int i = 0; i < 30; i++) {
            String key = String.format("k%03d", i);
            assertEquals(201, cluster.put(i % 3, "id=" + key + "&ack=1&from=1", "v" + i));
            expected.put(key, "v" + i);
        }
        for (int i = 0; i < 5; i++) {
            String key = String.format("all%d", i);
            assertEquals(201, cluster.put(i % 3, "id=" + key + "&ack=3&from=3", "a" + i));
            expected.put(key, "a" + i);
        }
        StringBuilder body = new StringBuilder();
        for (var e : expected.entrySet()) {
            body.append(e.getKey()).append('\n').append(e.getValue());
        }
        for (int node = 0; node < 3; node++) {
            assertEquals(body.toString(), clusterRange(node, "start=a"), "merged on node " + node);
            assertFalse(cluster.localRange(node).contains(body.toString()), "no node holds every key alone");
        }
        StringBuilder bounded = new StringBuilder();
        for (var e : expected.subMap("k010", "k020").entrySet()) {
            bounded.append(e.getKey()).append('\n').append(e.getValue());
        }
        assertEquals(bounded.toString(), clusterRange(1, "start=k010&end=k020"));
        assertEquals("", clusterRange(2, "start=zzz"), "an empty range");
    }

    @Test
    void theNewestVersionWinsAndADeleteSeenByOneReplicaHidesTheKey() throws Exception {
        cluster = new TestCluster(dir, 3);
        putOn(0, "k", "old", 100);
        putOn(1, "k", "new", 200);
        putOn(2, "k", "older", 50);
        putOn(0, "gone", "v", 100);
        putOn(1, "gone", "v", 100);
        putOn(2, "gone", null, 300);
        putOn(0, "back", null, 100);
        putOn(1, "back", "again", 200);
        putOn(2, "tie", "aaa", 500);
        putOn(0, "tie", "bbb", 500);
        assertEquals("back\nagaink\nnewtie\nbbb", clusterRange(0, "start=a"));
        assertEquals("back\nagaink\nnewtie\nbbb", clusterRange(2, "start=a&ack=3"));
    }

    @Test
    void theInternalRouteCarriesTimestampsAndTombstones() throws Exception {
        cluster = new TestCluster(dir, 1);
        putOn(0, "a", "1", 10);
        putOn(0, "b", null, 20);
        HttpResponse<byte[]> response = cluster.send(0, "GET", InternalCodec.rangeUri(b("a"), null), null);
        assertEquals(200, response.statusCode());
        RangeFrames.Decoder decoder = new RangeFrames.Decoder("node", 100, 100);
        decoder.feed(Buffer.buffer(response.body()));
        assertTrue(decoder.ended());
        assertEquals(Entry.value(b("a"), b("1"), 10), decoder.poll());
        assertEquals(Entry.tombstone(b("b"), 20), decoder.poll());
    }

    @Test
    void badParametersAre400() throws Exception {
        cluster = new TestCluster(dir, 2);
        assertEquals(400, cluster.send(0, "GET", "/v0/entities?start=a&scope=everywhere", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/entities?start=a&scope=cluster&ack=3", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/entities?start=a&scope=cluster&ack=0", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/entities?start=a&scope=cluster&ack=2&from=1", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/entities?start=a&scope=cluster&from=x", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/v0/entities?scope=cluster", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/internal/v0/entities", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/internal/v0/entities?start=***", null).statusCode());
        assertEquals(400, cluster.send(0, "GET", "/internal/v0/entities?start=YQ&end=", null).statusCode());
        assertEquals(405, cluster.send(0, "PUT", "/internal/v0/entities?start=YQ", new byte[0]).statusCode());
        assertEquals(200, cluster.send(0, "GET", "/v0/entities?start=a&scope=node", null).statusCode());
    }

    @Test
    @Tag("slow")
    void aNodeDownFailsTheRangeOnlyWhenAckCannotBeMet() throws Exception {
        cluster = new TestCluster(dir, 3);
        for (int i = 0; i < 20; i++) {
            assertEquals(201, cluster.put(0, "id=k" + i + "&ack=3&from=3", "v" + i));
        }
        String whole = clusterRange(0, "start=k");
        cluster.stop(2);
        assertEquals(whole, clusterRange(0, "start=k&ack=2"), "two of three replicas answer for every key");
        assertEquals(whole, clusterRange(1, "start=k"), "ack defaults to 1");
        HttpResponse<byte[]> refused = cluster.send(0, "GET", "/v0/entities?start=k&scope=cluster&ack=3", null);
        assertEquals(504, refused.statusCode(), "nothing sent before the failure: a status says it");
        String reason = new String(refused.body(), StandardCharsets.UTF_8);
        assertTrue(reason.contains(cluster.url(2)) && reason.contains("ack=3"), reason);
    }

    @Test
    @Tag("slow")
    void aHundredThousandTombstonesBeforeOneLiveKey() throws Exception {
        for (int node = 0; node < 2; node++) {
            try (Dao dao = Engine.LSM.open(DaoOptions.builder(dir.resolve("node-" + node)).build())) {
                for (int i = 0; i < 100_000; i++) {
                    dao.upsert(Entry.tombstone(b(String.format("t%06d", i)), 1000 + node));
                }
                if (node == 1) {
                    dao.upsert(Entry.value(b("u"), b("live"), 5));
                }
                dao.flush();
            }
        }
        cluster = new TestCluster(dir, 2);
        assertEquals("u\nlive", clusterRange(0, "start=t"));
        assertEquals("u\nlive", clusterRange(1, "start=t&ack=2"));
    }
}
