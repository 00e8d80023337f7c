package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Map changes commit through the metadata group's majority: a node cut off from it cannot change the
 * map, the group shows on {@code /v0/cluster}, a forced removal is the one way past a lost majority, and
 * the epoch log's route refuses what is not a well-formed vote.
 */
class MetadataQuorumTest {
    @TempDir
    Path dir;

    @Test
    void aClaimantWithoutAMajorityChangesNothingAndTheMajorityCanOnceBack() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 2, b -> b)) {
            nodes.startSeeds();
            ClusterMap before = nodes.awaitSameMap(30);
            assertEquals(nodes.urls.get(0), before.claimant());
            JsonObject metadata = new JsonObject(nodes.send(1, "GET", "/v0/cluster", null).body()).getJsonObject("metadata");
            assertEquals(new JsonArray(nodes.urls), metadata.getJsonArray("group"));
            assertEquals(2, metadata.getInteger("majority"));
            assertEquals(before.epoch(), metadata.getLong("committedEpoch"));

            nodes.stop(1);
            nodes.stop(2);
            HttpResponse<String> refused = nodes.send(0, "DELETE", "/v0/admin/nodes?url=" + nodes.urls.get(2), null);
            assertEquals(503, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("no majority of the metadata group"), refused.body());
            assertEquals(before, nodes.map(0), "the map did not move without a majority");

            nodes.start(1);
            HttpResponse<String> removed = nodes.send(0, "DELETE", "/v0/admin/nodes?url=" + nodes.urls.get(2), null);
            assertEquals(200, removed.statusCode(), removed.body());
            ClusterMap after = nodes.awaitSameMap(30);
            assertFalse(after.contains(nodes.urls.get(2)));
            assertEquals(List.of(nodes.urls.get(0), nodes.urls.get(1)),
                    new JsonObject(nodes.send(1, "GET", "/v0/cluster", null).body()).getJsonObject("metadata")
                            .getJsonArray("group").getList());
        }
    }

    /** The claimant waits out its commit before it refuses; the joining node waits longer, so it is told why. */
    @Test
    void aJoinWithoutAMajorityIsRefusedWithTheReasonReachingTheNewcomer() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 3, 2, b -> b)) {
            nodes.startSeeds();
            ClusterMap before = nodes.awaitSameMap(30);
            nodes.stop(1);
            nodes.stop(2);
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> nodes.startWith(3, nodes.config(3).join(nodes.urls.get(0)).build()).get(60, TimeUnit.SECONDS));
            String message = String.valueOf(refused.getCause().getMessage());
            assertTrue(message.contains("503") && message.contains("no majority of the metadata group"), message);
            assertEquals(before, nodes.map(0), "the map did not move without a majority");
        }
    }

    @Test
    void theClaimantLeavesByItselfAndAWipedRemovedNodeJoinsAgainUnderItsUrlWhileTheGroupFollows() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 4, 2, b -> b)) {
            nodes.startSeeds();
            for (int i = 0; i < 300; i++) {
                assertEquals(201, nodes.send(i % 4, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", "v" + i).statusCode());
            }
            HttpResponse<String> left = nodes.send(0, "POST", "/v0/admin/decommission", null);
            assertEquals(200, left.statusCode(), left.body());
            nodes.stop(0);
            ClusterMap map = nodes.awaitSameMap(30);
            assertEquals(nodes.urls.get(1), map.claimant(), "the claimant role moved on with the map");
            assertEquals(nodes.urls.subList(1, 4), group(nodes, 1));

            nodes.stop(3);
            HttpResponse<String> removed = nodes.send(2, "DELETE", "/v0/admin/nodes?url=" + nodes.urls.get(3), null);
            assertEquals(200, removed.statusCode(), removed.body());
            assertEquals(nodes.urls.subList(1, 3), group(nodes, 2));
            deleteRecursively(nodes.dataDirectory(3));
            nodes.startWith(3, nodes.config(3).join(nodes.urls.get(1)).build()).get(60, TimeUnit.SECONDS);
            nodes.node(3).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
            ClusterMap after = nodes.awaitSameMap(30);
            assertEquals(nodes.urls.subList(1, 4), after.urls());
            assertEquals(nodes.urls.subList(1, 4), group(nodes, 3));
            for (int i = 0; i < 300; i++) {
                assertEquals("v" + i, nodes.send(1 + i % 3, "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null).body(), "k" + i);
            }
        }
    }

    private static List<Object> group(MembershipNodes nodes, int node) throws Exception {
        return new JsonObject(nodes.send(node, "GET", "/v0/cluster", null).body()).getJsonObject("metadata")
                .getJsonArray("group").getList();
    }

    private static void deleteRecursively(Path root) throws java.io.IOException {
        try (java.util.stream.Stream<Path> all = java.nio.file.Files.walk(root)) {
            for (Path path : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(path);
            }
        }
    }

    @Test
    void aTwoNodeClusterRemovesItsDeadPeerOnlyWhenForced() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 2, 2, 1, b -> b)) {
            nodes.startSeeds();
            ClusterMap before = nodes.awaitSameMap(30);
            for (int i = 0; i < 50; i++) {
                assertEquals(201, nodes.send(0, "PUT", "/v0/entity?id=k" + i, "v" + i).statusCode());
            }
            nodes.stop(1);
            String peer = nodes.urls.get(1);
            assertEquals(400, nodes.send(0, "DELETE", "/v0/admin/nodes?url=" + peer + "&force=yes", null).statusCode());
            HttpResponse<String> join = nodes.send(0, "POST", "/internal/v0/membership/change?op=join&url=http%3A%2F%2F127.0.0.1%3A1"
                    + "&force=true", null);
            assertEquals(400, join.statusCode(), join.body());
            assertTrue(join.body().contains("only a removal can be forced"), join.body());

            HttpResponse<String> refused = nodes.send(0, "DELETE", "/v0/admin/nodes?url=" + peer, null);
            assertEquals(503, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("force=true"), "the refusal names the way out: " + refused.body());
            assertEquals(before, nodes.map(0));

            LogCapture log = LogCapture.start();
            HttpResponse<String> forced = nodes.send(0, "DELETE", "/v0/admin/nodes?url=" + peer + "&force=true", null);
            assertEquals(200, forced.statusCode(), forced.body());
            assertEquals(List.of(nodes.urls.get(0)), nodes.map(0).urls());
            assertTrue(log.warningsAndErrors().stream().anyMatch(line -> line.contains("WITHOUT a majority")),
                    "a forced commit is logged as such: " + log.warningsAndErrors());
        }
    }

    @Test
    void theEpochRouteAnswersOnlyWellFormedVotesAndADecidedEpochWithItsMap() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 1, b -> b)) {
            nodes.startSeeds();
            HttpResponse<String> decommission = nodes.send(2, "POST", "/v0/admin/decommission", null);
            assertEquals(200, decommission.statusCode(), decommission.body());
            ClusterMap map = nodes.awaitSameMap(30);
            String route = "/internal/v0/membership/epoch";
            assertEquals(405, nodes.send(1, "GET", route, null).statusCode());
            for (String bad : List.of("", "[]", "{\"phase\":\"prepare\"}", "{\"phase\":\"vote\",\"epoch\":5,\"round\":1,\"node\":\"n\"}",
                    "{\"phase\":\"prepare\",\"epoch\":5,\"round\":0,\"node\":\"n\"}",
                    "{\"phase\":\"prepare\",\"epoch\":1.5,\"round\":1,\"node\":\"n\"}",
                    "{\"phase\":\"accept\",\"epoch\":5,\"round\":1,\"node\":\"n\",\"value\":\"not a map\"}",
                    "{\"phase\":\"accept\",\"epoch\":5,\"round\":1,\"node\":\"n\",\"value\":5}",
                    "{\"phase\":\"prepare\",\"epoch\":1,\"round\":1,\"node\":\"n\"}")) {
                HttpResponse<String> answer = nodes.send(1, "POST", route, bad);
                assertEquals(400, answer.statusCode(), bad + " -> " + answer.body());
            }
            String wrongEpoch = new JsonObject().put("phase", "accept").put("epoch", map.epoch() + 5).put("round", 1)
                    .put("node", nodes.urls.get(0)).put("value", ClusterMapCodec.toJson(map)).encode();
            HttpResponse<String> mismatch = nodes.send(1, "POST", route, wrongEpoch);
            assertEquals(400, mismatch.statusCode(), mismatch.body());
            assertTrue(mismatch.body().contains("carries a map of epoch " + map.epoch()), mismatch.body());

            String old = new JsonObject().put("phase", "prepare").put("epoch", map.epoch() - 1).put("round", 7)
                    .put("node", nodes.urls.get(0)).encode();
            JsonObject decided = new JsonObject(nodes.send(1, "POST", route, old).body());
            assertEquals("decided", decided.getString("answer"));
            assertEquals(map.epoch(), decided.getLong("epoch"));
            assertEquals(map, ClusterMapCodec.fromJson(decided.getString("value")));
            assertEquals(map, nodes.map(1), "a vote changes no map");
        }
    }
}
