package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.ClusterMap;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class OwnedKeysTest {
    private static final List<String> FOUR = List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4");

    static List<String> partitioners() {
        return Partitioners.names();
    }

    /** Every key is kept by exactly RF owners: the ones placement makes its replicas. */
    @ParameterizedTest
    @MethodSource("partitioners")
    void everyKeyIsKeptByExactlyItsReplicas(String partitioner) {
        ClusterMap map = ClusterMap.seed(FOUR, 2, partitioner, 16);
        List<OwnedKeys> filters = FOUR.stream().map(url -> new OwnedKeys(map, url)).toList();
        Partitioner placement = map.placement();
        int[] kept = new int[FOUR.size()];
        for (int i = 0; i < 10_000; i++) {
            byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
            int keepers = 0;
            for (int node = 0; node < FOUR.size(); node++) {
                if (filters.get(node).keeps(key)) {
                    keepers++;
                    kept[node]++;
                }
            }
            assertEquals(2, keepers, "key-" + i);
            int[] replicas = placement.replicas(key, 2);
            assertTrue(filters.get(replicas[0]).keeps(key) && filters.get(replicas[1]).keeps(key));
        }
        for (int node = 0; node < FOUR.size(); node++) {
            assertTrue(kept[node] > 3_000 && kept[node] < 7_000, FOUR.get(node) + " keeps " + kept[node] + " of 10000");
        }
    }

    @Test
    void withEveryOwnerAReplicaEveryKeyIsKept() {
        OwnedKeys all = new OwnedKeys(ClusterMap.seed(FOUR.subList(0, 3), 3, "ring", 16), FOUR.get(1));
        assertTrue(all.keepsAll());
        assertTrue(all.keeps(new byte[] {1}));
    }

    @Test
    void ownershipIsRefusedWhileTheMapIsInTransitionOrForANodeThatOwnsNothing() {
        ClusterMap seeded = ClusterMap.seed(FOUR.subList(0, 3), 2, "ring", 16);
        ClusterMap joining = seeded.withJoining(FOUR.get(3));
        IllegalArgumentException transition = assertThrows(IllegalArgumentException.class,
                () -> new OwnedKeys(joining, FOUR.get(0)));
        assertTrue(transition.getMessage().contains("in transition"), transition.getMessage());
        IllegalArgumentException stranger = assertThrows(IllegalArgumentException.class,
                () -> new OwnedKeys(seeded, FOUR.get(3)));
        assertTrue(stranger.getMessage().contains("owns no range"), stranger.getMessage());
    }
}
