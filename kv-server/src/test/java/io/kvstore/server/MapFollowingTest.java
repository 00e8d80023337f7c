package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background machinery follows the cluster map without a restart: anti-entropy's peers, hinted
 * handoff's targets and the nodes a cluster-wide range reads.
 */
@Tag("slow")
class MapFollowingTest {
    @TempDir
    Path dir;

    private static List<String> repairPeers(HttpResponse<String> answer) {
        JsonArray peers = new JsonObject(answer.body()).getJsonArray("peers");
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < peers.size(); i++) {
            urls.add(peers.getJsonObject(i).getString("peer"));
        }
        return urls;
    }

    private static JsonObject peer(JsonObject status, String url) {
        JsonArray peers = status.getJsonArray("peers");
        for (int i = 0; i < peers.size(); i++) {
            if (peers.getJsonObject(i).getString("url").equals(url)) {
                return peers.getJsonObject(i);
            }
        }
        return null;
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(String what, int seconds, Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + seconds + " s: " + what);
            }
            Thread.sleep(50);
        }
    }

    @Test
    void aNodeThatJoinedIsARepairPeerGetsHintsAndIsReadByClusterRanges() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 3, 3, b -> b).startSeeds()) {
            for (int i = 0; i < 300; i++) {
                assertEquals(201, nodes.send(i % 3, "PUT", "/v0/entity?id=k" + i, "v" + i).statusCode());
            }
            nodes.start(3);
            nodes.node(3).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
            String newcomer = nodes.urls.get(3);
            nodes.awaitSameMap(10);
            assertEquals(new JsonArray(nodes.urls), nodes.status(0).getJsonArray("cluster"),
                    "a seed started with three nodes lists the map's four");

            HttpResponse<String> repair = nodes.send(0, "POST", "/v0/admin/repair", null);
            assertEquals(200, repair.statusCode(), repair.body());
            assertEquals(List.of(nodes.urls.get(1), nodes.urls.get(2), newcomer), repairPeers(repair));

            // All four nodes answer a range that needs every one of them.
            HttpResponse<String> range = nodes.send(1, "GET", "/v0/entities?start=k&scope=cluster&ack=4&from=4", null);
            assertEquals(200, range.statusCode(), range.body());
            assertEquals(300, range.body().split("k", -1).length - 1, "every key once");

            // Writes the newcomer misses while it is down are hinted to it and delivered when it is back.
            nodes.stop(3);
            for (int i = 0; i < 200; i++) {
                assertEquals(201, nodes.send(0, "PUT", "/v0/entity?id=h" + i + "&ack=2&from=3", "w" + i).statusCode());
            }
            long hinted = peer(nodes.status(0), newcomer).getLong("hintsPending");
            await("node 0 keeps hints for the stopped newcomer", 10,
                    () -> peer(nodes.status(0), newcomer).getLong("hintsPending") > 100);
            nodes.start(3);
            await("the hints reach the newcomer", 30, () -> peer(nodes.status(0), newcomer).getLong("hintsPending") == 0);
            assertTrue(nodes.status(0).getJsonObject("hints").getLong("replayed") > 100);
            String held = nodes.localRange(3);
            int delivered = 0;
            for (int i = 0; i < 200; i++) {
                delivered += held.contains("h" + i + "\nw" + i) ? 1 : 0;
            }
            assertTrue(delivered > 100, "the newcomer holds " + delivered + " of the 200 writes it missed (its share is 3/4)"
                    + "; hints pending before: " + hinted);
        }
    }

    @Test
    void aRemovedNodeIsNoRepairPeerItsHintsAreDroppedAndClusterRangesSkipIt() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 4, 3, b -> b).startSeeds()) {
            String dead = nodes.urls.get(1);
            nodes.stop(1);
            for (int i = 0; i < 200; i++) {
                assertEquals(201, nodes.send(0, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=3", "v" + i).statusCode());
            }
            await("node 0 keeps hints for the dead node", 10, () -> peer(nodes.status(0), dead).getLong("hintsPending") > 100);
            long pending = peer(nodes.status(0), dead).getLong("hintsPending");

            HttpResponse<String> removed = nodes.send(2, "DELETE", "/v0/admin/nodes?url=" + dead, null);
            assertEquals(200, removed.statusCode(), removed.body());
            nodes.awaitSameMap(10);

            await("the dead node's hints are dropped and counted", 10,
                    () -> nodes.status(0).getJsonObject("hints").getLong("droppedNodeLeft") >= pending);
            JsonObject status = nodes.status(0);
            assertEquals(null, peer(status, dead), "the dead node is no peer any more: " + status.getJsonArray("peers"));
            assertFalse(status.getJsonArray("cluster").contains(dead), "the removed node left the map: " + status.getJsonArray("cluster"));
            assertEquals(0, status.getJsonObject("hints").getLong("replayed"));

            HttpResponse<String> repair = nodes.send(0, "POST", "/v0/admin/repair", null);
            assertEquals(200, repair.statusCode(), "the dead node is no repair peer: " + repair.body());
            assertEquals(List.of(nodes.urls.get(2), nodes.urls.get(3)), repairPeers(repair));

            // With the dead node still listed, a range needing every node would fail.
            HttpResponse<String> range = nodes.send(3, "GET", "/v0/entities?start=k&scope=cluster&ack=3&from=3", null);
            assertEquals(200, range.statusCode(), range.body());
            assertEquals(200, range.body().split("k", -1).length - 1, "every key once");
            assertFalse(nodes.map(0).contains(dead));
        }
    }
}
