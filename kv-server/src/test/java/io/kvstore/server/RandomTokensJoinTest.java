package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.RingTokens;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.config.ServerCommand;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster seeded with {@code --ring-tokens random} keeps random tokens whatever the default: a node
 * started with the default options joins it without tokens, one given {@code --ring-tokens allocated} is
 * refused, a seed that lost its data directory takes the cluster's map again, and one that could not
 * and seeded another map of the same epoch is refused by its peers rather than followed.
 */
@Tag("slow")
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

    @Test
    void aSeedThatLostItsDataDirectoryTakesTheClustersRandomMapOnRestart() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 3, b -> b.ringTokens(RingTokens.RANDOM)).startSeeds()) {
            ClusterMap seeded = nodes.awaitSameMap(10);
            assertEquals(RingTokens.RANDOM, seeded.ringTokens());
            int keys = 300;
            for (int i = 0; i < keys; i++) {
                assertEquals(201, nodes.send(i % 3, "PUT", "/v0/entity?id=k" + i + "&ack=3&from=3", "v" + i).statusCode());
            }
            nodes.stop(2);
            wipe(nodes.dataDirectory(2));

            KvServerConfig defaults = seedOptions(nodes, 2);
            assertEquals(RingTokens.ALLOCATED, defaults.ringTokens(), "alone, it would seed allocated tokens");
            nodes.startWith(2, defaults).get(60, TimeUnit.SECONDS);
            assertEquals(seeded, nodes.map(2), "it took the cluster's map, not a seed of its own");
            assertEquals(seeded, nodes.awaitSameMap(10));
            assertEquals(256, nodes.status(2).getInteger("virtualNodes"), "status reports the map's, not the options'");
            assertEquals("random", nodes.status(2).getString("ringTokens"));
            for (int i = 0; i < keys; i++) {
                assertEquals("v" + i, nodes.send(i % 3, "GET", "/v0/entity?id=k" + i + "&ack=2&from=3", null).body(), "k" + i);
            }
            for (int node = 0; node < 3; node++) {
                assertEquals(0, diverged(nodes, node), "node " + node);
            }
        }
    }

    @Test
    void aSeedThatFoundNoPeerAndSeededAnotherMapOfTheSameEpochIsRefusedNotFollowed() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 3, 3, b -> b.ringTokens(RingTokens.RANDOM)).startSeeds()) {
            ClusterMap seeded = nodes.awaitSameMap(10);
            for (int i = 0; i < 3; i++) {
                nodes.stop(i);
            }
            wipe(nodes.dataDirectory(2));
            // Its peers are down: it finds no map and seeds one of its own, allocated, also at epoch 1.
            nodes.startWith(2, seedOptions(nodes, 2)).get(60, TimeUnit.SECONDS);
            ClusterMap apart = nodes.map(2);
            assertEquals(seeded.epoch(), apart.epoch());
            assertEquals(RingTokens.ALLOCATED, apart.ringTokens());
            nodes.start(0);
            nodes.start(1);

            HttpResponse<String> refused = nodes.send(2, "PUT", "/v0/entity?id=k&ack=3&from=3", "v");
            assertEquals(504, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("409") && refused.body().contains("cluster map mismatch"), refused.body());
            assertTrue(diverged(nodes, 0) + diverged(nodes, 1) >= 1, "the peers counted the refused requests");
            awaitDiverged(nodes, 2); // it finds out by pulling its peers' maps, as they do
            assertEquals(seeded, nodes.map(0), "the cluster did not follow the other map");
            assertEquals(apart, nodes.map(2), "nor did the node follow the cluster's: an operator has to step in");
        }
    }

    /** Waits until the node counted a peer on another map of its epoch; fails after 10 s. */
    private static void awaitDiverged(MembershipNodes nodes, int node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (diverged(nodes, node) < 1) {
            assertTrue(System.nanoTime() < deadline, "node " + node + " never noticed its peers' other map");
            Thread.sleep(100);
        }
    }

    /** The node's {@code kv_cluster_map_diverged_total}. */
    private static double diverged(MembershipNodes nodes, int node) throws Exception {
        String metrics = nodes.send(node, "GET", "/metrics", null).body();
        for (String line : metrics.split("\n")) {
            if (line.startsWith("kv_cluster_map_diverged_total")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no kv_cluster_map_diverged_total in " + metrics);
    }

    private static void wipe(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        }
        assertFalse(Files.exists(directory));
    }

    /** Node {@code i}'s command line as a seed with the default options and the cluster's --cluster list. */
    private static KvServerConfig seedOptions(MembershipNodes nodes, int i) {
        String url = nodes.urls.get(i);
        return ServerCommand.parse("--port", "" + URI.create(url).getPort(), "--self", url,
                "--data-dir", nodes.dataDirectory(i).toString(), "--cluster", String.join(",", nodes.urls),
                "--event-loops", "1", "--anti-entropy-interval-s", "0", "--replica-timeout-ms", "2000");
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
