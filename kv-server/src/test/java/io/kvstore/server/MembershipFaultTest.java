package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.core.testing.Seeds;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership changes with real processes killed (SIGKILL) or paused (SIGSTOP) while they run.
 *
 * <p>Every case takes half a minute or more, so a default run draws {@value #DRAWN} of them from a
 * printed seed; {@code -Dkv.faultCases=all} runs them all (the slow tier's {@code .ci/matrix}),
 * {@code -Dkv.faultCases=N} draws N, and {@code -Dkv.faultCases=NAME} runs the case of that name.
 */
@Tag("slow")
class MembershipFaultTest {
    /** Cases a default run draws. */
    static final int DRAWN = 3;
    private static final Set<String> CHOSEN = chosen();

    private static final String VALUE = "v".repeat(300);
    private static final String LARGE = "b".repeat(3000);
    private static final int LARGE_KEYS = 1500;
    /** Writes sent through a paused node, served as it thaws. */
    private static final int THAWED_WRITES = 200;

    @TempDir
    Path dir;

    /** The cases this run takes, from {@code kv.faultCases}. */
    private static Set<String> chosen() {
        List<String> all = new ArrayList<>();
        for (Method method : MembershipFaultTest.class.getDeclaredMethods()) {
            if (method.isAnnotationPresent(Test.class)) {
                all.add(method.getName());
            }
        }
        Collections.sort(all);
        String chosen = System.getProperty("kv.faultCases", Integer.toString(DRAWN)).trim();
        if (chosen.equals("all")) {
            return Set.copyOf(all);
        }
        if (all.contains(chosen)) {
            return Set.of(chosen);
        }
        int count;
        try {
            count = Integer.parseInt(chosen);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("kv.faultCases must be all, a number or a case of " + all + ", got '" + chosen + "'");
        }
        Collections.shuffle(all, new Random(Seeds.seed("MembershipFaultTest")));
        return Set.copyOf(all.subList(0, Math.min(Math.max(count, 0), all.size())));
    }

    @BeforeEach
    void drawn(TestInfo test) {
        String name = test.getTestMethod().orElseThrow().getName();
        Assumptions.assumeTrue(CHOSEN.contains(name),
                name + " was not drawn for this run: -Dkv.faultCases=all runs every case, -Dkv.faultCases=" + name + " this one");
    }

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

    /** Writes {@value #LARGE_KEYS} values of 3 kB at 2/2, key i through node {@code via(i)}: enough for streams that take seconds. */
    private static void preloadLarge(MembershipNodes nodes, IntUnaryOperator via) throws Exception {
        for (int i = 0; i < LARGE_KEYS; i++) {
            int status = 503;
            // As a client does: a node that sheds load (a busy machine) answers 503, to be tried again.
            for (int attempt = 0; attempt < 5 && status == 503; attempt++) {
                status = nodes.send(via.applyAsInt(i), "PUT", "/v0/entity?id=k" + i + "&ack=2&from=2", LARGE + i).statusCode();
            }
            assertEquals(201, status, "k" + i);
        }
    }

    private static void assertLargeReadable(MembershipNodes nodes, IntUnaryOperator via) throws Exception {
        for (int i = 0; i < LARGE_KEYS; i++) {
            assertEquals(LARGE + i, nodes.send(via.applyAsInt(i), "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null).body(),
                    "k" + i);
        }
    }

    private static void assertEveryKeyReadable(MembershipNodes nodes, int keys) throws Exception {
        for (int i = 0; i < keys; i++) {
            assertEquals(VALUE + i, nodes.send(i % 2, "GET", "/v0/entity?id=k" + i + "&ack=2&from=2", null).body(), "k" + i);
        }
    }

    @Test
    void aNewcomerKilledMidStreamLeavesTheMapAndJoinsWhenStartedAgain() throws Exception {
        // Two nodes in this JVM seed the cluster; the newcomer is a process of its own.
        try (MembershipNodes nodes = new MembershipNodes(dir, 3, 2, 2, b -> b.streamBatchBytes(256 << 10).streamBytesPerSecond(150_000))) {
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
                ClusterMap joined = awaitOneMap(nodes, 0, 1, 2);
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
                ClusterMap after = awaitOneMap(nodes, 0, 1, 2);
                assertEquals(before.epoch() + 3, after.epoch(), "joining, reads moved, then normal");
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

    @Test
    void aBystanderPausedThroughAJoinAndWrittenThroughAsItThawsLosesNoWrite() throws Exception {
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 2, 2, b -> b)) {
            nodes.startSeeds();
            String bystander = nodes.urls.get(2);
            ChildServer child = startNewcomer(nodes, bystander, new String[] {"--self", bystander, "--join", nodes.urls.get(1)},
                    KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND);
            try {
                child.awaitLine("joined the cluster");
                Map<String, String> acknowledged = new ConcurrentHashMap<>();
                for (int i = 0; i < 900; i++) {
                    String value = "p" + i + ";";
                    assertEquals(201, nodes.send(i % 2, "PUT", "/v0/entity?id=pre-" + i + "&ack=2&from=2", value).statusCode());
                    acknowledged.put("pre-" + i, value);
                }
                signal(child, "STOP");
                nodes.start(3);
                // The join waits for the paused bystander's stream; every other owner's is done.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (true) {
                    JsonObject change = new JsonObject(nodes.send(0, "GET", "/v0/admin/changes", null).body())
                            .getJsonArray("changes").getJsonObject(0);
                    if (change.getInteger("streams") > 0 && change.getInteger("streamsDone") == change.getInteger("streams") - 1) {
                        break;
                    }
                    assertTrue(System.nanoTime() < deadline, "the other owners' streams: " + change);
                    Thread.sleep(50);
                }
                // Its clients' writes wait in its sockets, so that it serves them as it thaws, on the map it
                // had, before or while it learns the one it missed.
                List<CompletableFuture<HttpResponse<String>>> writes = new ArrayList<>();
                for (int i = 0; i < THAWED_WRITES; i++) {
                    writes.add(nodes.http.sendAsync(HttpRequest.newBuilder(URI.create(bystander + "/v0/entity?id=thawed-" + i
                                    + "&ack=2&from=2")).PUT(HttpRequest.BodyPublishers.ofString("b" + i + ";"))
                            .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
                }
                signal(child, "CONT");
                int sent = 0;
                for (int i = 0; i < THAWED_WRITES; i++) {
                    if (writes.get(i).get(60, TimeUnit.SECONDS).statusCode() == 201) {
                        acknowledged.put("thawed-" + i, "b" + i + ";");
                        sent++;
                    }
                }
                assertTrue(sent > THAWED_WRITES / 2, "writes through the thawed bystander: " + sent + " of "
                        + THAWED_WRITES + " acknowledged");
                nodes.node(3).joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
                awaitOneMap(nodes, 0, 1, 2, 3);
                PlacementChangeTest.checkPlacement(nodes, List.of(0, 1, 2, 3), acknowledged, "after the join");
            } finally {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
        }
    }

    @Test
    void aSourceKilledMidStreamResumesFromItsCheckpointWhenRestartedAndTheJoinFinishes() throws Exception {
        // Nodes 0 and 1 in this JVM and node 2, a process of its own, seed the cluster; node 3 joins.
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 2, 2, b -> b.streamUnreachableTimeout(Duration.ofSeconds(90)))) {
            List<String> seeds = nodes.urls.subList(0, 3);
            String source = nodes.urls.get(2);
            String[] flags = {"--self", source, "--cluster", String.join(",", seeds), "--replication-factor", "2"};
            // The child streams slowly (its scan of about 3 MB takes some 15 s), so that the kill lands mid-stream.
            ChildServer child = startNewcomer(nodes, source, flags, 200_000);
            try {
                for (int i = 0; i < 2; i++) {
                    nodes.startWith(i, nodes.config(i).cluster(seeds).build()).get(60, TimeUnit.SECONDS);
                }
                preloadLarge(nodes, i -> i % 2);
                Queue<String> acknowledged = new ConcurrentLinkedQueue<>();
                AtomicBoolean writing = new AtomicBoolean(true);
                CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                    for (int i = 0; writing.get(); i++) {
                        try {
                            if (nodes.send(i % 2, "PUT", "/v0/entity?id=w" + i + "&ack=2&from=2", "w" + i).statusCode() == 201) {
                                acknowledged.add("w" + i);
                            }
                        } catch (Exception e) {
                            // not acknowledged: nothing to check
                        }
                    }
                });
                nodes.start(3);
                Path checkpoint = dir.resolve("child-" + port(source)).resolve("stream-2.checkpoint");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.exists(checkpoint)) {
                    assertTrue(System.nanoTime() < deadline, "the source never kept a checkpoint: " + child.log());
                    Thread.sleep(20);
                }
                assertEquals("joining", nodes.map(0).state(nodes.urls.get(3)).id(), "the kill lands mid-join");
                signal(child, "KILL");
                child.process.waitFor();

                child = startNewcomer(nodes, source, flags, 200_000);
                child.awaitLine("resuming the stream of change 2 after a checkpoint");
                nodes.node(3).joined().toCompletableFuture().get(120, TimeUnit.SECONDS);
                writing.set(false);
                writer.get(30, TimeUnit.SECONDS);

                ClusterMap map = awaitOneMap(nodes, 0, 1, 2, 3);
                assertEquals(NodeState.NORMAL, map.state(nodes.urls.get(3)));
                assertEquals(4, map.epoch(), "joining, reads moved, then normal: the join finished");
                assertLargeReadable(nodes, i -> i % 2);
                assertTrue(acknowledged.size() > 10, "writes went on during the join: " + acknowledged.size());
                for (String key : acknowledged) {
                    assertEquals(200, nodes.send(3, "GET", "/v0/entity?id=" + key + "&ack=2&from=2", null).statusCode(), key);
                }
            } finally {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
        }
    }

    @Test
    void aClaimantKilledMidJoinDrivesTheJoinOnWhenRestartedAndEveryNodeHoldsOneMap() throws Exception {
        // The claimant (first in map order) is a process of its own; nodes 1 and 2 run in this JVM; node 3 joins.
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 1, 2, b -> b.streamBatchBytes(256 << 10).streamBytesPerSecond(200_000))) {
            String claimant = nodes.urls.get(0);
            String[] flags = claimantFlags(nodes, 3);
            ChildServer child = startNewcomer(nodes, claimant, flags, 200_000);
            try {
                startOtherSeeds(nodes, 3);
                // Values of 3 kB: each owner's scan of about 3 MB takes some 15 s, so that the kill lands mid-change.
                preloadLarge(nodes, i -> 1 + i % 2);
                nodes.startWith(3, nodes.config(3).join(nodes.urls.get(1)).build()).get(60, TimeUnit.SECONDS);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (nodes.map(1).state(nodes.urls.get(3)) != NodeState.JOINING) {
                    assertTrue(System.nanoTime() < deadline, "the newcomer never showed as joining: " + nodes.map(1));
                    Thread.sleep(20);
                }
                signal(child, "KILL");
                child.process.waitFor();

                child = startNewcomer(nodes, claimant, flags, 200_000);
                child.awaitLine("resumes the join of " + nodes.urls.get(3));
                nodes.node(3).joined().toCompletableFuture().get(120, TimeUnit.SECONDS);
                // The restarted claimant holds the same map (it may learn the last one from the others).
                ClusterMap map = awaitOneMap(nodes, 0, 1, 2, 3);
                assertEquals(NodeState.NORMAL, map.state(nodes.urls.get(3)));
                assertEquals(4, map.owners().size());
                assertLargeReadable(nodes, i -> 3);
            } finally {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
        }
    }

    @Test
    void aClaimantKilledMidRemovalFinishesItFromTheSurvivorsWhenRestarted() throws Exception {
        // The claimant (first in map order) is a process of its own; nodes 1 to 3 run in this JVM; node 3 dies.
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 1, 2, b -> b.streamBatchBytes(256 << 10).streamBytesPerSecond(200_000))) {
            String claimant = nodes.urls.get(0);
            String dead = nodes.urls.get(3);
            String[] flags = claimantFlags(nodes, 4);
            ChildServer child = startNewcomer(nodes, claimant, flags, 200_000);
            try {
                startOtherSeeds(nodes, 4);
                // Values of 3 kB: each survivor's scan of about 3 MB takes some 15 s, so that the kill lands mid-change.
                preloadLarge(nodes, i -> 1 + i % 3);
                nodes.stop(3);
                CompletableFuture<Integer> removal = CompletableFuture.supplyAsync(() -> {
                    try {
                        return nodes.send(1, "DELETE", "/v0/admin/nodes?url=" + dead, null).statusCode();
                    } catch (Exception e) {
                        return -1;
                    }
                });
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (nodes.map(1).state(dead) != NodeState.LEAVING) {
                    assertTrue(System.nanoTime() < deadline, "the dead node never showed as leaving: " + nodes.map(1));
                    Thread.sleep(20);
                }
                signal(child, "KILL");
                child.process.waitFor();
                removal.get(60, TimeUnit.SECONDS);

                child = startNewcomer(nodes, claimant, flags, 200_000);
                child.awaitLine("resumes the decommission of " + dead);
                child.awaitLine(dead + " does not answer; its keys come from the surviving replicas");
                // The restarted claimant holds the same map (it may learn the last one from the others).
                ClusterMap map = awaitOneMap(nodes, 0, 1, 2);
                assertFalse(map.contains(dead), "the dead node left the map: " + map);
                assertEquals(3, map.owners().size());
                assertLargeReadable(nodes, i -> 1 + i % 2);
            } finally {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
        }
    }

    @Test
    void aClaimantPausedTwentySecondsMidJoinFinishesItAfterAndNoOtherMapIsMadeMeanwhile() throws Exception {
        // The claimant (first in map order) is a process of its own; nodes 1 and 2 run in this JVM; node 3 joins.
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 1, 2, b -> b.streamBatchBytes(256 << 10).streamBytesPerSecond(200_000))) {
            String claimant = nodes.urls.get(0);
            ChildServer child = startNewcomer(nodes, claimant, claimantFlags(nodes, 3), 200_000);
            try {
                startOtherSeeds(nodes, 3);
                preloadLarge(nodes, i -> 1 + i % 2);
                nodes.startWith(3, nodes.config(3).join(nodes.urls.get(1)).build()).get(60, TimeUnit.SECONDS);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (nodes.map(1).state(nodes.urls.get(3)) != NodeState.JOINING) {
                    assertTrue(System.nanoTime() < deadline, "the newcomer never showed as joining: " + nodes.map(1));
                    Thread.sleep(20);
                }
                long joiningEpoch = nodes.map(1).epoch();
                long pausedAt = System.nanoTime();
                signal(child, "STOP");
                try {
                    // Meanwhile another change is refused (the claimant does not answer), and no map moves.
                    HttpResponse<String> refused = nodes.send(2, "POST", "/v0/admin/decommission", null);
                    assertEquals(503, refused.statusCode(), refused.body());
                    long left = 20_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
                    if (left > 0) {
                        Thread.sleep(left); // the pause itself: nothing to wait for but time
                    }
                    for (int node = 1; node <= 3; node++) {
                        assertEquals(joiningEpoch, nodes.map(node).epoch(), "no map was made while the claimant was paused");
                    }
                } finally {
                    signal(child, "CONT");
                }
                nodes.node(3).joined().toCompletableFuture().get(120, TimeUnit.SECONDS);
                // The thawed claimant holds the same map (it may learn the last one from the others).
                ClusterMap map = awaitOneMap(nodes, 0, 1, 2, 3);
                assertEquals(NodeState.NORMAL, map.state(nodes.urls.get(3)));
                assertEquals(joiningEpoch + 2, map.epoch(), "two maps after the joining one: reads moved, then the join's end");
                assertLargeReadable(nodes, i -> 3);
            } finally {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
        }
    }

    @Test
    void aClaimantKilledForGoodMidDecommissionIsTakenOverByItsSuccessorAndThenRemoved() throws Exception {
        // The claimant (first in map order) is a process of its own and never comes back; nodes 1 to 3 run
        // in this JVM. Node 3 decommissions; its streams are slow enough that the kill lands mid-change.
        try (MembershipNodes nodes = new MembershipNodes(dir, 4, 1, 2, b -> b.streamBatchBytes(256 << 10).streamBytesPerSecond(200_000)
                .streamUnreachableTimeout(Duration.ofSeconds(5)))) {
            String claimant = nodes.urls.get(0);
            String leaving = nodes.urls.get(3);
            ChildServer child = startNewcomer(nodes, claimant, claimantFlags(nodes, 4), 200_000);
            try {
                startOtherSeeds(nodes, 4);
                preloadLarge(nodes, i -> 1 + i % 3);
                HttpResponse<String> started = nodes.send(3, "POST", "/v0/admin/decommission?async=true", null);
                assertEquals(202, started.statusCode(), started.body());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (nodes.map(1).state(leaving) != NodeState.LEAVING) {
                    assertTrue(System.nanoTime() < deadline, "the node never showed as leaving: " + nodes.map(1));
                    Thread.sleep(20);
                }
                signal(child, "KILL");
                child.process.waitFor();

                // The successor (node 1) drives the change to an end: the dead claimant cannot stream its
                // share of the decommission, so it is rolled back; no map stays in transition.
                ClusterMap settled = awaitOneMap(nodes, 1, 2, 3);
                assertEquals(NodeState.NORMAL, settled.state(leaving), settled.toString());
                assertTrue(settled.contains(claimant));

                HttpResponse<String> removed = nodes.send(2, "DELETE", "/v0/admin/nodes?url=" + claimant, null);
                assertEquals(200, removed.statusCode(), removed.body());
                ClusterMap after = awaitOneMap(nodes, 1, 2, 3);
                assertFalse(after.contains(claimant), after.toString());
                assertLargeReadable(nodes, i -> 1 + i % 3);
            } finally {
                child.process.toHandle().destroyForcibly();
                child.process.waitFor();
            }
        }
    }

    /** The command line of node 0, the claimant (first in map order), seeding the first {@code seeds} nodes at RF 2. */
    private static String[] claimantFlags(MembershipNodes nodes, int seeds) {
        return new String[] {"--self", nodes.urls.get(0), "--cluster", String.join(",", nodes.urls.subList(0, seeds)),
                "--replication-factor", "2"};
    }

    /** Starts seeds 1 to {@code seeds - 1} in this JVM, with the claimant's seed list. */
    private static void startOtherSeeds(MembershipNodes nodes, int seeds) throws Exception {
        for (int i = 1; i < seeds; i++) {
            nodes.startWith(i, nodes.config(i).cluster(nodes.urls.subList(0, seeds)).build()).get(60, TimeUnit.SECONDS);
        }
    }

    /** Waits until the given nodes hold one settled map. */
    private static ClusterMap awaitOneMap(MembershipNodes nodes, int... which) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            List<ClusterMap> maps = new ArrayList<>();
            for (int node : which) {
                maps.add(nodes.map(node));
            }
            if (maps.stream().distinct().count() == 1 && !maps.get(0).inTransition()) {
                return maps.get(0);
            }
            assertTrue(System.nanoTime() < deadline, "no single settled map: " + maps);
            Thread.sleep(100);
        }
    }

    private ChildServer startNewcomer(MembershipNodes nodes, String url, String[] flags, long streamRate) throws Exception {
        List<String> all = new ArrayList<>(List.of(flags));
        all.add("--stream-bytes-per-s");
        all.add(Long.toString(streamRate));
        all.add("--stream-batch-bytes"); // rounds, and so checkpoints, every 256 KiB: a kill lands mid-stream
        all.add(Integer.toString(256 << 10));
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
