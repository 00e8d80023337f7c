package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.server.wire.PassOnList;
import io.kvstore.server.wire.Routes;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pushed map handed on over real nodes: the node it is pushed to passes it to the members the
 * pusher named and tells which of them it could not reach; malformed shares are refused.
 */
class MapRelayRouteTest {
    @TempDir
    Path dir;

    private static HttpResponse<String> push(MembershipNodes nodes, int node, ClusterMap map, String query) throws Exception {
        return nodes.send(node, "PUT", Routes.MAP + query, ClusterMapCodec.toJson(map));
    }

    @Test
    void aPushedMapIsHandedOnToTheMembersNamedAndTheUnreachableOnesAreTold() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 4, 2, b -> b)) {
            nodes.startSeeds();
            ClusterMap settled = nodes.map(0);
            List<String> others = nodes.urls.subList(1, 4);

            ClusterMap next = settled.withState(nodes.urls.get(3), NodeState.LEAVING);
            HttpResponse<String> relayed = push(nodes, 0, next, "?passOn=" + PassOnList.encode(next, others) + "&passOnMillis=3000");
            assertEquals(200, relayed.statusCode(), relayed.body());
            assertEquals(new JsonObject().put("failed", new JsonArray()).put("unknown", new JsonArray()), new JsonObject(relayed.body()));
            for (int i = 0; i < 4; i++) {
                assertEquals(next.epoch(), nodes.map(i).epoch(), "node " + i + " has the map handed on");
            }

            nodes.stop(3);
            ClusterMap back = next.withState(nodes.urls.get(3), NodeState.NORMAL);
            relayed = push(nodes, 0, back, "?passOn=" + PassOnList.encode(back, others) + "&passOnMillis=2000");
            assertEquals(200, relayed.statusCode(), relayed.body());
            JsonObject outcome = new JsonObject(relayed.body());
            assertEquals(new JsonArray().add(nodes.urls.get(3)), outcome.getJsonArray("failed"), relayed.body());
            assertTrue(outcome.getJsonArray("unknown").isEmpty(), relayed.body());
            assertEquals(back.epoch(), nodes.map(1).epoch());
            assertEquals(back.epoch(), nodes.map(2).epoch());

            // Without a share, a push is answered as before.
            assertEquals(204, push(nodes, 1, back, "").statusCode());
            for (String bad : new String[] {"?passOn=1", "?passOnMillis=100", "?passOn=2-1&passOnMillis=100",
                    "?passOn=1,1&passOnMillis=100", "?passOn=9&passOnMillis=100", "?passOn=x&passOnMillis=100",
                    "?passOn=1&passOnMillis=-1", "?passOn=1&passOnMillis=600000", "?passOn=&passOnMillis=100"}) {
                HttpResponse<String> refused = push(nodes, 1, back, bad);
                assertEquals(400, refused.statusCode(), bad + ": " + refused.body());
            }
        }
    }
}
