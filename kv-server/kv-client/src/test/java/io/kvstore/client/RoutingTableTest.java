package io.kvstore.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.RingTokens;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client rebuilds the nodes' placement from {@code GET /v0/cluster}, allocated ring tokens included. */
class RoutingTableTest {
    private static final List<String> NODES = List.of("http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3",
            "http://127.0.0.1:4");

    @Test
    void aMapWithAllocatedTokensPlacesKeysAsTheNodesDo() {
        ClusterMap served = ClusterMap.seed(NODES, 2, "ring", 16, RingTokens.ALLOCATED);
        RoutingTable parsed = RoutingTable.fromClusterMap(ClusterMapCodec.toJson(served), "test");
        Partitioner nodes = served.placement();
        for (int i = 0; i < 2000; i++) {
            byte[] key = ("user:" + i).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(nodes.replicas(key, 4), parsed.partitioner.replicas(key, 4), "key user:" + i);
        }
    }

    @Test
    void aJoiningNodeTakesNoRequestsUntilItOwnsRanges() {
        ClusterMap joining = ClusterMap.seed(NODES.subList(0, 3), 2, "ring", 16).withJoining(NODES.get(3));
        RoutingTable table = RoutingTable.fromClusterMap(ClusterMapCodec.toJson(joining), "test");
        assertEquals(NODES, table.nodes);
        assertEquals(joining.epoch(), table.epoch);
        long now = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            assertTrue(table.usable(i, now), NODES.get(i));
        }
        assertFalse(table.usable(3, now), "the joining node");
    }

    @Test
    void aRetryGoesToANodeNotTriedYetUsableOnesFirst() {
        RoutingTable table = RoutingTable.fromClusterMap(ClusterMapCodec.toJson(ClusterMap.seed(NODES, 2, "ring", 16)), "test");
        long now = System.nanoTime();
        assertEquals(1, table.untried(0, List.of(NODES.get(0)), now));
        table.markDown(1, now);
        assertEquals(2, table.untried(0, List.of(NODES.get(0)), now), "a node marked down waits while another is usable");
        assertEquals(1, table.untried(0, List.of(NODES.get(0), NODES.get(2), NODES.get(3)), now),
                "one marked down is still tried before giving up");
        assertEquals(0, table.untried(0, NODES, now), "every node tried: the caller gives up");
    }

    @Test
    void aMapWithTokensOnSomeNodesOnlyIsRefused() {
        String json = "{\"epoch\":1,\"replicationFactor\":1,\"partitioner\":\"ring\",\"virtualNodes\":1,\"nodes\":["
                + "{\"url\":\"http://127.0.0.1:1\",\"state\":\"normal\",\"tokens\":[\"5\"]},"
                + "{\"url\":\"http://127.0.0.1:2\",\"state\":\"normal\"}]}";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RoutingTable.fromClusterMap(json, "node 1"));
        assertTrue(e.getMessage().contains("from node 1") && e.getMessage().contains("has 0 tokens"), e.getMessage());
        String bad = json.replace("\"5\"", "\"five\"");
        IllegalArgumentException badToken = assertThrows(IllegalArgumentException.class,
                () -> RoutingTable.fromClusterMap(bad, "node 1"));
        assertTrue(badToken.getMessage().contains("'five' is not a signed 64-bit integer"), badToken.getMessage());
    }

    @Test
    void aStatusWithoutAMapRoutesOverItsNodeList() {
        String status = "{\"node\":\"http://127.0.0.1:2\",\"cluster\":[\"http://127.0.0.1:1\",\"http://127.0.0.1:2\"],"
                + "\"partitioner\":\"jump\",\"virtualNodes\":8}";
        RoutingTable table = RoutingTable.fromStatus(status, "test");
        assertEquals(0, table.epoch);
        assertEquals(NODES.subList(0, 2), table.nodes);
        assertEquals(2, table.replicationFactor);
        assertTrue(table.usable(0, System.nanoTime()) && table.usable(1, System.nanoTime()));
    }
}
