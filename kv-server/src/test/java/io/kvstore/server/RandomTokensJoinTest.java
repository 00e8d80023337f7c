package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.RingTokens;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster seeded with {@code --ring-tokens random} keeps random tokens whatever the default: a node
 * started with the default options joins it without tokens, one given {@code --ring-tokens allocated} is refused.
 */
class RandomTokensJoinTest {
    @TempDir
    Path dir;

    @Test
    void aNodeWithTheDefaultOptionsJoinsARandomTokenClusterAndAnExplicitMismatchIsRefused() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 2, 2, b -> b.ringTokens(RingTokens.RANDOM)).startSeeds()) {
            ClusterMap seeded = nodes.map(0);
            assertEquals(RingTokens.RANDOM, seeded.ringTokens());
            assertEquals(Partitioners.DEFAULT_VIRTUAL_NODES, seeded.virtualNodes());
            int keys = 500;
            for (int i = 0; i < keys; i++) {
                assertEquals(201, nodes.send(i % 2, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", "v" + i).statusCode());
            }

            KvServerConfig explicit = joinerOptions(nodes, 2, "--ring-tokens", "allocated");
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> nodes.startWith(2, explicit).get(60, TimeUnit.SECONDS));
            assertTrue(refused.getCause().getMessage().contains("--ring-tokens allocated but the cluster uses random"),
                    refused.getCause().getMessage());

            KvServerConfig defaults = joinerOptions(nodes, 3);
            assertEquals(RingTokens.ALLOCATED, defaults.ringTokens(), "the joiner's own default differs from the cluster's");
            assertFalse(defaults.ringTokensGiven());
            nodes.startWith(3, defaults).get(60, TimeUnit.SECONDS).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
            ClusterMap grown = nodes.awaitSameMap(10);
            assertEquals(3, grown.owners().size());
            assertEquals(RingTokens.RANDOM, grown.ringTokens(), "the cluster keeps random tokens");
            assertEquals(Partitioners.DEFAULT_VIRTUAL_NODES, grown.virtualNodes());
            assertTrue(grown.member(nodes.urls.get(3)).tokens().isEmpty(), "the newcomer has no tokens of its own");
            for (int i = 0; i < keys; i += 7) {
                assertEquals("v" + i, nodes.send(3, "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null).body());
            }
        }
    }

    /** Node {@code i}'s command line to join through the first seed, with {@code extra} options. */
    private static KvServerConfig joinerOptions(MembershipNodes nodes, int i, String... extra) {
        String url = nodes.urls.get(i);
        String[] base = {"--port", "" + URI.create(url).getPort(), "--self", url,
            "--data-dir", nodes.dataDirectory(i).toString(), "--join", nodes.urls.get(0), "--event-loops", "1",
            "--anti-entropy-interval-s", "0", "--replica-timeout-ms", "2000"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return ServerCommand.parse(args);
    }
}
