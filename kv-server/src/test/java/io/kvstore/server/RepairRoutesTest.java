package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.internal.repair.VersionPage;
import io.kvstore.core.Entry;
import io.kvstore.server.config.NetworkOptions;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.RepairProtocol;
import io.kvstore.server.wire.Routes;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The repair routes refuse what is malformed with a 400 that says why, and store nothing from it. */
class RepairRoutesTest {
    @TempDir
    Path dir;
    private TestCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new TestCluster(dir, 2);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private HttpResponse<byte[]> send(String method, String pathAndQuery, byte[] body) throws Exception {
        return cluster.send(0, method, pathAndQuery, body);
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private String partner(int node) {
        return URLEncoder.encode(cluster.url(node), StandardCharsets.UTF_8);
    }

    @Test
    void treeRequestsNamingABadPartnerFactorOrDepthAre400() throws Exception {
        String tree = RepairProtocol.TREE + "?partner=";
        for (String bad : List.of(tree + "http%3A%2F%2Fnowhere%3A1&rf=2&depth=8", tree + partner(0) + "&rf=2&depth=8",
                tree + partner(1) + "&rf=3&depth=8", tree + partner(1) + "&rf=2&depth=0", tree + partner(1) + "&rf=2&depth=21",
                tree + partner(1) + "&rf=two&depth=8", tree + partner(1) + "&depth=8", RepairProtocol.TREE + "?rf=2&depth=8")) {
            HttpResponse<byte[]> response = send("POST", bad, null);
            assertEquals(400, response.statusCode(), bad + ": " + text(response));
        }
        HttpResponse<byte[]> unknown = send("GET", RepairProtocol.TREE + "?tree=12345", null);
        assertEquals(400, unknown.statusCode());
        assertTrue(text(unknown).contains("no repair tree 12345"), text(unknown));
        assertEquals(405, send("PUT", RepairProtocol.TREE + "?tree=1", new byte[0]).statusCode());
        assertEquals(405, send("GET", RepairProtocol.HASHES + "?tree=1&level=0", null).statusCode());
        assertEquals(400, send("POST", Routes.REPAIR_PREFIX + "nothing", new byte[0]).statusCode());
    }

    @Test
    void treesAnswerHashesAndRefuseLevelsAndIndexesOutsideThem() throws Exception {
        HttpResponse<byte[]> opened = send("POST", RepairProtocol.TREE + "?partner=" + partner(1) + "&rf=2&depth=4", null);
        assertEquals(200, opened.statusCode(), text(opened));
        long id = Long.parseLong(text(opened));
        assertEquals(200, send("GET", RepairProtocol.TREE + "?tree=" + id, null).statusCode());
        String hashes = RepairProtocol.HASHES + "?tree=" + id + "&level=";
        HttpResponse<byte[]> root = send("POST", hashes + "0", RepairProtocol.ints(new int[] {0}).getBytes());
        assertEquals(200, root.statusCode());
        assertEquals(8, root.body().length);
        assertEquals(400, send("POST", hashes + "5", RepairProtocol.ints(new int[] {0}).getBytes()).statusCode());
        assertEquals(400, send("POST", hashes + "4", RepairProtocol.ints(new int[] {16}).getBytes()).statusCode());
        assertEquals(400, send("POST", hashes + "4", new byte[] {0, 0, 1}).statusCode(), "not whole indexes");
        assertEquals(400, send("POST", hashes + "x", new byte[0]).statusCode());
        String versions = RepairProtocol.VERSIONS + "?tree=" + id + "&max=";
        assertEquals(400, send("POST", versions + "10&after=a%2Bb", new byte[0]).statusCode());
        assertEquals(400, send("POST", versions + "0", new byte[0]).statusCode());
        byte[] segment17 = new byte[3];
        segment17[2] = 2;
        assertEquals(400, send("POST", versions + "10", segment17).statusCode(), "a segment past the tree's");
        assertEquals(200, send("POST", versions + "10", new byte[] {1}).statusCode());
        assertEquals(204, send("DELETE", RepairProtocol.TREE + "?tree=" + id, null).statusCode());
        assertEquals(400, send("POST", hashes + "0", RepairProtocol.ints(new int[] {0}).getBytes()).statusCode());
    }

    @Test
    void aTreeOverAKeyIntervalHoldsAndListsOnlyItsKeysAndBadBoundsAre400() throws Exception {
        List<Entry> letters = new ArrayList<>();
        for (char c = 'a'; c <= 'z'; c++) {
            letters.add(Entry.value(new byte[] {(byte) c}, new byte[] {(byte) c}, 1000L << 16));
        }
        assertEquals(204, send("POST", RepairProtocol.APPLY, RepairProtocol.entries(letters).getBytes()).statusCode());
        String tree = RepairProtocol.TREE + "?partner=" + partner(1) + "&rf=2&depth=4";
        String m = InternalCodec.encodeKey(new byte[] {'m'});
        String p = InternalCodec.encodeKey(new byte[] {'p'});
        String x = InternalCodec.encodeKey(new byte[] {'x'});

        assertEquals("3", builtTreeEntries(tree + "&from=" + m + "&to=" + p), "m, n and o");
        assertEquals("3", builtTreeEntries(tree + "&from=" + x), "x, y and z: no upper end");
        assertEquals("12", builtTreeEntries(tree + "&to=" + m), "a to l: no lower end");
        assertEquals("0", builtTreeEntries(tree + "&from=" + m + "&to=" + m), "an empty interval");
        assertEquals("26", builtTreeEntries(tree), "no bounds: the whole key space, as before intervals");

        HttpResponse<byte[]> opened = send("POST", tree + "&from=" + m + "&to=" + p, null);
        long id = Long.parseLong(text(opened));
        assertEquals(200, send("GET", RepairProtocol.TREE + "?tree=" + id, null).statusCode());
        HttpResponse<byte[]> listed = send("POST", RepairProtocol.VERSIONS + "?tree=" + id + "&max=100",
                new byte[] {(byte) 0xFF, (byte) 0xFF});
        assertEquals(200, listed.statusCode(), text(listed));
        VersionPage page = new RepairProtocol.Reader(listed.body(), "test", 100).page();
        assertTrue(page.complete());
        assertEquals(List.of("m", "n", "o"), page.versions().stream().map(v -> new String(v.key(), StandardCharsets.UTF_8)).toList());

        int limit = NetworkOptions.DEFAULT_MAX_KEY_BYTES;
        byte[] longest = new byte[limit];
        Arrays.fill(longest, (byte) 'z');
        assertEquals("0", builtTreeEntries(tree + "&from=" + InternalCodec.encodeKey(longest) + "&to="
                + InternalCodec.encodeKey(Arrays.copyOf(longest, limit + 1))), "the end just past a longest key");
        Map<String, String> refused = Map.of(
                tree + "&from=" + p + "&to=" + m, "after its end",
                tree + "&from=a%2Bb", "bad from",
                tree + "&to=a.b", "bad to",
                tree + "&from=", "empty from",
                tree + "&from=" + InternalCodec.encodeKey(new byte[limit + 1]), "exceeds the limit of " + limit,
                tree + "&to=" + InternalCodec.encodeKey(new byte[limit + 2]), "exceeds the limit of " + (limit + 1));
        for (Map.Entry<String, String> bad : refused.entrySet()) {
            HttpResponse<byte[]> response = send("POST", bad.getKey(), null);
            assertEquals(400, response.statusCode(), bad.getKey() + ": " + text(response));
            assertTrue(text(response).contains(bad.getValue()), text(response));
        }
    }

    /** Opens a tree, waits until it is built and returns the entries its poll answers, then closes it. */
    private String builtTreeEntries(String request) throws Exception {
        HttpResponse<byte[]> opened = send("POST", request, null);
        assertEquals(200, opened.statusCode(), request + ": " + text(opened));
        String poll = RepairProtocol.TREE + "?tree=" + text(opened);
        HttpResponse<byte[]> built = send("GET", poll, null);
        while (built.statusCode() == 202) {
            built = send("GET", poll, null);
        }
        assertEquals(200, built.statusCode(), text(built));
        assertEquals(204, send("DELETE", poll, null).statusCode());
        return text(built);
    }

    @Test
    void appliedEntriesFollowTheNewestWinsRuleAndMalformedOnesStoreNothing() throws Exception {
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        Buffer newer = RepairProtocol.entries(List.of(Entry.value(key, "new".getBytes(StandardCharsets.UTF_8), 2000L << 16)));
        Buffer older = RepairProtocol.entries(List.of(Entry.value(key, "old".getBytes(StandardCharsets.UTF_8), 1000L << 16)));
        assertEquals(204, send("POST", RepairProtocol.APPLY, newer.getBytes()).statusCode());
        assertEquals(204, send("POST", RepairProtocol.APPLY, older.getBytes()).statusCode());
        assertTrue(cluster.localRange(0).contains("k\nnew"), "an older entry does not replace a newer one");

        byte[] truncated = RepairProtocol.entries(List.of(Entry.value("t".getBytes(StandardCharsets.UTF_8),
                new byte[100], 5000L << 16))).getBytes();
        HttpResponse<byte[]> refused = send("POST", RepairProtocol.APPLY, Arrays.copyOf(truncated, truncated.length - 10));
        assertEquals(400, refused.statusCode());
        assertTrue(text(refused).contains("malformed entry list at offset"), text(refused));
        assertTrue(!cluster.localRange(0).contains("t\n"), "nothing of a malformed batch is stored");

        HttpResponse<byte[]> keys = send("POST", RepairProtocol.ENTRIES + "?maxBytes=1000",
                RepairProtocol.keys(List.of(key, "absent".getBytes(StandardCharsets.UTF_8))).getBytes());
        assertEquals(200, keys.statusCode());
        RepairProtocol.Reader reader = new RepairProtocol.Reader(keys.body(), "test", 100);
        var batch = reader.batch();
        assertEquals(2, batch.keysRead());
        assertEquals(List.of(Entry.value(key, "new".getBytes(StandardCharsets.UTF_8), 2000L << 16)), batch.entries());
        assertEquals(400, send("POST", RepairProtocol.ENTRIES + "?maxBytes=0", new byte[4]).statusCode());

        byte[] ttlKey = "ttl".getBytes(StandardCharsets.UTF_8);
        Entry expiring = Entry.value(ttlKey, "soon".getBytes(StandardCharsets.UTF_8), 3000L << 16,
                System.currentTimeMillis() + 3_600_000);
        assertEquals(204, send("POST", RepairProtocol.APPLY, RepairProtocol.entries(List.of(expiring)).getBytes()).statusCode());
        HttpResponse<byte[]> repaired = send("POST", RepairProtocol.ENTRIES + "?maxBytes=1000",
                RepairProtocol.keys(List.of(ttlKey)).getBytes());
        assertEquals(List.of(expiring), new RepairProtocol.Reader(repaired.body(), "test", 100).batch().entries(),
                "a repaired entry keeps its expiry both ways");
        byte[] tooLong = RepairProtocol.keys(List.of(new byte[70_000])).getBytes();
        assertEquals(400, send("POST", RepairProtocol.ENTRIES + "?maxBytes=1000", tooLong).statusCode(), "a key over the limit");
    }

    @Test
    void ingestedBatchesFollowTheNewestWinsRuleAndOnesOutOfKeyOrderStoreNothing() throws Exception {
        String ingest = RepairProtocol.APPLY + "?" + RepairProtocol.INGEST + "=true";
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        assertEquals(204, send("POST", RepairProtocol.APPLY,
                RepairProtocol.entries(List.of(Entry.value(k, "new".getBytes(StandardCharsets.UTF_8), 2000L << 16))).getBytes())
                .statusCode());
        List<Entry> sorted = List.of(Entry.value("i1".getBytes(StandardCharsets.UTF_8), "v1".getBytes(StandardCharsets.UTF_8), 1000L << 16),
                Entry.value("i2".getBytes(StandardCharsets.UTF_8), "v2".getBytes(StandardCharsets.UTF_8), 1000L << 16),
                Entry.value(k, "old".getBytes(StandardCharsets.UTF_8), 1000L << 16));
        assertEquals(204, send("POST", ingest, RepairProtocol.entries(sorted).getBytes()).statusCode());
        String local = cluster.localRange(0);
        assertTrue(local.contains("i1\nv1") && local.contains("i2\nv2"), local);
        assertTrue(local.contains("k\nnew") && !local.contains("k\nold"), "an older ingested entry does not replace a newer one");

        List<Entry> unsorted = List.of(Entry.value("o2".getBytes(StandardCharsets.UTF_8), new byte[1], 3000L << 16),
                Entry.value("o1".getBytes(StandardCharsets.UTF_8), new byte[1], 3000L << 16));
        HttpResponse<byte[]> refused = send("POST", ingest, RepairProtocol.entries(unsorted).getBytes());
        assertEquals(400, refused.statusCode());
        assertTrue(text(refused).contains("strictly increasing key order"), text(refused));
        HttpResponse<byte[]> badFlag = send("POST", RepairProtocol.APPLY + "?" + RepairProtocol.INGEST + "=yes",
                RepairProtocol.entries(sorted).getBytes());
        assertEquals(400, badFlag.statusCode());
        assertTrue(text(badFlag).contains("ingest must be true or false"), text(badFlag));
        List<Entry> future = List.of(Entry.value("f".getBytes(StandardCharsets.UTF_8), new byte[1],
                (System.currentTimeMillis() + 3_600_000) << 16));
        assertEquals(400, send("POST", ingest, RepairProtocol.entries(future).getBytes()).statusCode(),
                "an entry from the future, as apply refuses it");
        String after = cluster.localRange(0);
        assertTrue(!after.contains("o1\n") && !after.contains("o2\n") && !after.contains("f\n"), "nothing of a refused batch: " + after);
    }

    @Test
    void adminRepairIsPostOrGetAndAnswers503NamingAPeerItCannotReach() throws Exception {
        HttpResponse<byte[]> put = send("PUT", Routes.ADMIN_REPAIR, new byte[0]);
        assertEquals(405, put.statusCode());
        assertEquals("GET, POST", put.headers().firstValue("Allow").orElse(null));
        assertEquals(404, send("GET", Routes.ADMIN_REPAIR, null).statusCode(), "no run to report yet");
        HttpResponse<byte[]> ok = send("POST", Routes.ADMIN_REPAIR, null);
        assertEquals(200, ok.statusCode(), text(ok));
        assertEquals(0, new JsonObject(text(ok)).getLong("keysSent"));
        cluster.stop(1);
        HttpResponse<byte[]> unreachable = send("POST", Routes.ADMIN_REPAIR, null);
        assertEquals(503, unreachable.statusCode());
        JsonObject answer = new JsonObject(text(unreachable));
        assertTrue(answer.getString("error").contains(cluster.url(1)), text(unreachable));
        assertTrue(answer.getJsonObject("failedPeers").containsKey(cluster.url(1)), text(unreachable));
    }
}
