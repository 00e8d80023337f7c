package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Membership changes with real processes killed (SIGKILL) or paused (SIGSTOP) while they run. */
@Tag("slow")
class MembershipFaultTest {
    private static final String VALUE = "v".repeat(300);

    @TempDir
    Path dir;

    private static void signal(ChildServer child, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.process.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal);
    }

    private static int port(String url) {
        return URI.create(url).getPort();
    }

    private static void preload(MembershipNodes nodes, int keys) throws Exception {
        for (int i = 0; i < keys; i++) {
            assertEquals(201, nodes.send(i % 2, "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", VALUE + i).statusCode());
        }
    }

    private static void assertEveryKeyReadable(MembershipNodes nodes, int keys) throws Exception {
        for (int i = 0; i < keys; i++) {
            assertEquals(VALUE + i, nodes.send(i % 2, "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null).body(), "k" + i);
        }
    }

    /** Waits until the two in-process nodes and the child hold one settled map. */
    private static ClusterMap awaitOneMap(MembershipNodes nodes, int child) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            List<ClusterMap> maps = new ArrayList<>(List.of(nodes.map(0), nodes.map(1), nodes.map(child)));
            if (maps.stream().distinct().count() == 1 && !maps.get(0).inTransition()) {
                return maps.get(0);
            }
            assertTrue(System.nanoTime() < deadline, "no single settled map: " + maps);
            Thread.sleep(100);
        }
    }

    @Test
    void aNewcomerKilledMidStreamLeavesTheMapAndJoinsWhenStartedAgain() throws Exception {
        // Two nodes in this JVM seed the cluster; the newcomer is a process of its own.
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 2, 2, b -> b.streamBytesPerSecond(150_000))) {
            nodes.startSeeds();
            int keys = 1500;
            preload(nodes, keys);
            String newcomer = nodes.urls.get(2);
            String[] flags = {"--self", newcomer, "--join", nodes.urls.get(0)};
            // The owners stream slowly (about 3 s each), so that the kill lands mid-stream.
            ChildServer child = null;
            try {
                child = startNewcomer(nodes, newcomer, flags, KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND);
                child.awaitLine("is joining the cluster");
                assertEquals(NodeState.JOINING, nodes.map(0).state(newcomer));
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
                ClusterMap aborted = awaitTwo(nodes);
                assertNull(aborted.state(newcomer), "the killed newcomer never became normal: " + aborted);
                assertEquals(3, aborted.epoch(), "joining, then out again");

                child = startNewcomer(nodes, newcomer, flags, KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND);
                child.awaitLine("joined the cluster");
                ClusterMap joined = awaitOneMap(nodes, 2);
                assertEquals(NodeState.NORMAL, joined.state(newcomer));
                assertEveryKeyReadable(nodes, keys);
            } finally {
                if (child != null) {
                    child.process.toHandle().destroyForcibly();
                    child.process.waitFor();
                }
            }
        }
    }

    @Test
    void aBystanderPausedDuringAJoinCatchesUpWithTheMap() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 2, 2, b -> b)) {
            nodes.startSeeds();
            preload(nodes, 1000);
            // The third node joins as a process of its own, then pauses while a fourth joins.
            String bystander = nodes.urls.get(2);
            ChildServer child = startNewcomer(nodes, bystander, new String[] {"--self", bystander, "--join", nodes.urls.get(1)},
                    KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND);
            try {
                child.awaitLine("joined the cluster");
                signal(child, "STOP");
                ClusterMap before = nodes.map(0);
                nodes.start(3);
                try {
                    Thread.sleep(1500);
                } finally {
                    signal(child, "CONT");
                }
                nodes.node(3).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
                ClusterMap after = awaitOneMap(nodes, 2);
                assertEquals(before.epoch() + 2, after.epoch());
                assertEquals(nodes.map(3), after, "the newcomer holds the same map too");
                assertEquals(4, after.owners().size());
                assertEveryKeyReadable(nodes, 1000);
                assertFalse(after.inTransition());
            } finally {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
        }
    }

    private ChildServer startNewcomer(MembershipNodes nodes, String url, String[] flags, long streamRate) throws Exception {
        List<String> all = new ArrayList<>(List.of(flags));
        all.add("--stream-bytes-per-s");
        all.add(Long.toString(streamRate));
        all.add("--anti-entropy-interval-s");
        all.add("0");
        return ChildServer.start(port(url), dir.resolve("child-" + port(url)), "-Xmx256m", all.toArray(new String[0]));
    }

    private static ClusterMap awaitTwo(MembershipNodes nodes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            ClusterMap a = nodes.map(0);
            ClusterMap b = nodes.map(1);
            if (a.equals(b) && !a.inTransition()) {
                return a;
            }
            assertTrue(System.nanoTime() < deadline, "no single settled map: " + a + " / " + b);
            Thread.sleep(100);
        }
    }
}
