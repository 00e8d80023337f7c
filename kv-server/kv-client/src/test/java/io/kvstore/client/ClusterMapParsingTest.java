package io.kvstore.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.RingTokens;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client rebuilds the nodes' placement from {@code GET /v0/cluster}, allocated ring tokens included. */
class ClusterMapParsingTest {
    private static final List<String> NODES = List.of("http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3",
            "http://127.0.0.1:4");

    @Test
    void aMapWithAllocatedTokensPlacesKeysAsTheNodesDo() {
        io.kvstore.cluster.membership.ClusterMap served = io.kvstore.cluster.membership.ClusterMap.seed(
                NODES, 2, "ring", 16, RingTokens.ALLOCATED);
        ClusterMap parsed = ClusterMap.parse(ClusterMapCodec.toJson(served), "test");
        Partitioner nodes = served.placement();
        for (int i = 0; i < 2000; i++) {
            byte[] key = ("user:" + i).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(nodes.replicas(key, 4), parsed.partitioner.replicas(key, 4), "key user:" + i);
        }
    }

    @Test
    void aMapWithTokensOnSomeNodesOnlyIsRefused() {
        String json = "{\"epoch\":1,\"replicationFactor\":1,\"partitioner\":\"ring\",\"virtualNodes\":1,\"nodes\":["
                + "{\"url\":\"http://127.0.0.1:1\",\"state\":\"normal\",\"tokens\":[\"5\"]},"
                + "{\"url\":\"http://127.0.0.1:2\",\"state\":\"normal\"}]}";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterMap.parse(json, "node 1"));
        assertTrue(e.getMessage().contains("gives tokens to some nodes only"), e.getMessage());
        String bad = json.replace("\"5\"", "\"five\"");
        IllegalArgumentException badToken = assertThrows(IllegalArgumentException.class, () -> ClusterMap.parse(bad, "node 1"));
        assertTrue(badToken.getMessage().contains("not a 64-bit integer: five"), badToken.getMessage());
    }
}
