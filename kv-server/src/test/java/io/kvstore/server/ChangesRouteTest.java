package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ?async=true} on the routes that start a change, and {@code GET /v0/admin/changes} following it. */
class ChangesRouteTest {
    private static final int KEYS = 600;

    @TempDir
    Path dir;

    /** The change {@code id} as {@code node} lists it, once it is over; fails after 60 s. */
    private static JsonObject awaitOver(MembershipNodes nodes, int node, long id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            HttpResponse<String> answer = nodes.send(node, "GET", "/v0/admin/changes", null);
            assertEquals(200, answer.statusCode(), answer.body());
            JsonArray changes = new JsonObject(answer.body()).getJsonArray("changes");
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

    @Test
    void anAsyncDecommissionAnswersAtOnceAndAnyNodeListsItsStepsAndStreamsToTheEnd() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 2, b -> b)) {
            nodes.startSeeds();
            for (int i = 0; i < KEYS; i++) {
                assertEquals(201, nodes.send(0, "PUT", "/v0/entity?id=c" + i + "&ack=2&from=2", "value-" + i).statusCode());
            }
            String claimant = nodes.map(0).claimant();
            // The leaving node is not the claimant, and the third node, which is neither, forwards to the claimant.
            int leaving = nodes.urls.indexOf(claimant) == 2 ? 1 : 2;
            int other = 3 - leaving - nodes.urls.indexOf(claimant);
            assertEquals(400, nodes.send(leaving, "POST", "/v0/admin/decommission?async=yes", null).statusCode());

            HttpResponse<String> started = nodes.send(leaving, "POST", "/v0/admin/decommission?async=true", null);
            assertEquals(202, started.statusCode(), started.body());
            JsonObject ids = new JsonObject(started.body());
            assertEquals(claimant, ids.getString("claimant"));
            long id = ids.getLong("id");

            JsonObject change = awaitOver(nodes, other, id);
            assertEquals("decommission", change.getString("operation"));
            assertEquals(nodes.urls.get(leaving), change.getString("node"));
            assertEquals("done", change.getString("status"), change.encode());
            assertEquals("done", change.getString("step"));
            assertFalse(change.getBoolean("resumed"));
            assertTrue(change.getInteger("streams") >= 1, change.encode());
            assertEquals(change.getInteger("streams"), change.getInteger("streamsDone"), change.encode());
            assertTrue(change.getLong("entriesStreamed") > 0, "the leaving node's keys moved: " + change.encode());
            assertTrue(change.getLong("bytesStreamed") >= 16 * change.getLong("entriesStreamed"), change.encode());
            assertTrue(change.getLong("keysScanned") >= change.getLong("entriesStreamed") / 3,
                    "a key read is sent to at most as many nodes as it has replicas: " + change.encode());
            assertTrue(change.getLong("keysToScan") >= 0, change.encode());
            assertNotNull(change.getString("finishedAt"));
            assertFalse(Instant.parse(change.getString("finishedAt")).isBefore(Instant.parse(change.getString("startedAt"))));
            assertEquals(change, awaitOver(nodes, nodes.urls.indexOf(claimant), id), "the claimant lists the same change");
            assertFalse(nodes.map(other).contains(nodes.urls.get(leaving)));

            // Refusals are answered at once as before; only the route's own method is served.
            HttpResponse<String> unknown = nodes.send(other, "DELETE", "/v0/admin/nodes?url=http://127.0.0.1:1&async=true", null);
            assertEquals(404, unknown.statusCode(), unknown.body());
            assertEquals(405, nodes.send(other, "POST", "/v0/admin/changes", null).statusCode());
            long epoch = nodes.map(other).epoch();
            for (String bad : List.of("http%3A%2F%2Fx%3A1%2Fpath", "x%3A1", "https%3A%2F%2Fx%3A1")) {
                HttpResponse<String> join = nodes.send(other, "POST", "/internal/v0/membership/change?op=join&url=" + bad, null);
                assertEquals(400, join.statusCode(), bad + ": " + join.body());
                assertTrue(join.body().contains("node URL"), join.body());
            }
            assertEquals(epoch, nodes.map(other).epoch(), "no join of a URL that is not a node's");
            // A stream is asked for by name: a change's epoch, or a plan without failed sources.
            for (String name : List.of("999", "999-without-0.3")) {
                HttpResponse<String> none = nodes.send(other, "GET", "/internal/v0/membership/stream?id=" + name, null);
                assertEquals(404, none.statusCode(), name + ": " + none.body());
                assertTrue(none.body().contains("no stream " + name), none.body());
            }
            for (String bad : List.of("x", "-1", "7-without-", "7-without-a", "7-without-0..3", "7+1", "")) {
                HttpResponse<String> refused = nodes.send(other, "GET", "/internal/v0/membership/stream?id=" + bad, null);
                assertEquals(400, refused.statusCode(), bad + ": " + refused.body());
            }
            for (int i = 0; i < KEYS; i++) {
                assertEquals("value-" + i, nodes.send(other, "GET", "/v0/entity?id=c" + i + "&ack=2&from=2", null).body());
            }
        }
    }
}
