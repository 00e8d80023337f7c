package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code DELETE /v0/admin/changes/ID}: a running change stops and rolls back to the map before it, on any
 * node's word, and every key stays readable at quorum; what cannot be cancelled is refused with the reason.
 */
class ChangeCancelTest {
    private static final int KEYS = 400;

    @TempDir
    Path dir;

    @Test
    void aCancelledDecommissionRollsBackAndLosesNothing() throws Exception {
        // Streams paced at 8 KB/s: the decommission is still streaming when it is cancelled.
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 2, b -> b.streamBatchBytes(256 << 10).streamBytesPerSecond(8 << 10))) {
            nodes.startSeeds();
            String value = "v".repeat(500);
            for (int i = 0; i < KEYS; i++) {
                assertEquals(201, nodes.send(0, "PUT", "/v0/entity?id=c" + i + "&ack=2&from=2", value + i).statusCode());
            }
            ClusterMap before = nodes.awaitSameMap(30);
            HttpResponse<String> started = nodes.send(2, "POST", "/v0/admin/decommission?async=true", null);
            assertEquals(202, started.statusCode(), started.body());
            long id = new JsonObject(started.body()).getLong("id");
            String claimant = new JsonObject(started.body()).getString("claimant");
            JsonObject driving = new JsonObject(nodes.send(nodes.urls.indexOf(claimant), "GET", "/v0/cluster", null).body())
                    .getJsonObject("metadata");
            assertTrue(driving.getBoolean("changeInProgress"), driving.encode());
            assertEquals(id, driving.getJsonObject("change").getLong("id"), driving.encode());
            assertEquals("decommission", driving.getJsonObject("change").getString("operation"));

            assertEquals(400, nodes.send(1, "DELETE", "/v0/admin/changes/x1", null).statusCode());
            assertEquals(405, nodes.send(1, "GET", "/v0/admin/changes/" + id, null).statusCode());
            assertEquals(404, nodes.send(1, "DELETE", "/v0/admin/changes/" + (id + 1000), null).statusCode());
            HttpResponse<String> cancel = nodes.send(1, "DELETE", "/v0/admin/changes/" + id, null);
            assertEquals(202, cancel.statusCode(), cancel.body());

            JsonObject change = awaitOver(nodes, 1, id);
            assertEquals("cancelled", change.getString("status"), change.encode());
            assertTrue(change.getString("reason").contains("cancelled by an operator"), change.encode());
            ClusterMap after = nodes.awaitSameMap(30);
            assertEquals(NodeState.NORMAL, after.state(nodes.urls.get(2)), "the node is back: " + after);
            assertEquals(before.urls(), after.urls());
            assertTrue(after.epoch() > before.epoch());
            HttpResponse<String> again = nodes.send(0, "DELETE", "/v0/admin/changes/" + id, null);
            assertEquals(409, again.statusCode(), again.body());
            for (int i = 0; i < KEYS; i++) {
                HttpResponse<String> read = nodes.send(i % 3, "GET", "/v0/entity?id=c" + i + "&ack=2&from=2", null);
                assertEquals(200, read.statusCode(), "c" + i);
                assertEquals(value + i, read.body());
            }
        }
    }

    private static JsonObject awaitOver(MembershipNodes nodes, int node, long id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            JsonArray changes = new JsonObject(nodes.send(node, "GET", "/v0/admin/changes", null).body()).getJsonArray("changes");
            for (int i = 0; i < changes.size(); i++) {
                JsonObject change = changes.getJsonObject(i);
                if (change.getLong("id") == id && !"running".equals(change.getString("status"))) {
                    return change;
                }
            }
            assertTrue(System.nanoTime() < deadline, "change " + id + " not over within 60 s: " + changes);
            Thread.sleep(100);
        }
    }
}
