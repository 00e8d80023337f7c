package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.internal.TokenAllocator;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.RingTokens;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cluster seeded with {@code --ring-tokens allocated} grows with tokens chosen by the claimant and kept in the map. */
@Tag("slow")
class AllocatedTokensJoinTest {
    @TempDir
    Path dir;

    @Test
    void aJoiningNodeGetsAllocatedTokensAndTheKeysOfItsShare() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 5, 3, 2, b -> b.ringTokens(RingTokens.ALLOCATED)).startSeeds()) {
            ClusterMap seeded = nodes.map(0);
            assertEquals(RingTokens.ALLOCATED, seeded.ringTokens());
            assertEquals(TokenAllocator.DEFAULT_TOKENS, seeded.virtualNodes());
            List<long[]> seedTokens = new ArrayList<>();
            for (String url : nodes.urls.subList(0, 3)) {
                seedTokens.add(tokens(seeded, url));
            }
            assertArrayEquals(TokenAllocator.allocateAll(3, 16, 2).toArray(), seedTokens.toArray(),
                    "the seeds' tokens are allocated in map order");
            int keys = 3000;
            for (int i = 0; i < keys; i++) {
                assertEquals(201, nodes.send(i % 3, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", "v" + i + ";").statusCode());
            }

            ExecutionException conflict = assertThrows(ExecutionException.class, () -> nodes.startWith(4,
                    nodes.config(4).join(nodes.urls.get(0)).ringTokens(RingTokens.RANDOM).build()).get(60, TimeUnit.SECONDS));
            assertTrue(conflict.getCause().getMessage().contains("--ring-tokens random but the cluster uses allocated"),
                    conflict.getCause().getMessage());

            nodes.start(3);
            nodes.node(3).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
            ClusterMap grown = nodes.awaitSameMap(10);
            assertEquals(4, grown.owners().size());
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(seedTokens.get(i), tokens(grown, nodes.urls.get(i)), "a seed keeps its tokens");
            }
            assertArrayEquals(TokenAllocator.allocate(seedTokens, 16, 2), tokens(grown, nodes.urls.get(3)),
                    "the newcomer's tokens are the allocator's choice given the seeds' tokens");
            for (int i = 0; i < keys; i += 7) {
                assertEquals("v" + i + ";", nodes.send(3, "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null).body());
            }
            int onNewcomer = 0;
            String range = nodes.localRange(3);
            for (int i = 0; i < range.length(); i++) {
                onNewcomer += range.charAt(i) == ';' ? 1 : 0;
            }
            double share = 2.0 / 4 * keys;
            int held = onNewcomer;
            assertTrue(Math.abs(held - share) <= 0.15 * share, "the newcomer holds " + held + " keys; its share is RF/N = 2/4 of "
                    + keys);
        }
    }

    private static long[] tokens(ClusterMap map, String url) {
        return map.member(url).tokens().stream().mapToLong(Long::longValue).toArray();
    }
}
