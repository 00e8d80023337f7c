package io.kvstore.cluster.internal.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.internal.Scheduler;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * The map handed on through nodes: every target reached once, no node sending more than the fan-out,
 * the depth of a thousand nodes, and what a silent node, a node that hands nothing on and a node that
 * never answers leave to the sender.
 */
class MapRelayTest {
    @Test
    void theSplitPutsEveryTargetInOneHandAndNormalNodesFirst() {
        List<String> targets = nodes(1000);
        List<MapRelay.Hand> hands = MapRelay.split(targets, node -> !node.equals(url(0)) && !node.equals(url(5)));
        assertEquals(MapRelay.FAN_OUT, hands.size());
        Set<String> seen = new HashSet<>();
        for (MapRelay.Hand hand : hands) {
            assertTrue(seen.add(hand.node()));
            hand.passOn().forEach(node -> assertTrue(seen.add(node), node + " twice"));
            assertTrue(Math.abs(hand.passOn().size() - (1000 - 8) / 8) <= 1, "equal shares: " + hand.passOn().size());
            assertTrue(!hand.node().equals(url(0)) && !hand.node().equals(url(5)), "a node that is not normal hands nothing on");
        }
        assertEquals(new HashSet<>(targets), seen);
        assertEquals(List.of(url(1), url(2)), MapRelay.split(List.of(url(1), url(2)), node -> true).stream().map(MapRelay.Hand::node).toList());
        assertTrue(MapRelay.split(List.of(), node -> true).isEmpty());
    }

    @Test
    void aThousandNodesGetTheMapInFourHopsNoneSendingMoreThanTheFanOut() {
        Network network = new Network(Set.of(), Set.of(), Set.of());
        ClusterMap map = ClusterMap.seed(nodes(1001), 3, "ring", 16, io.kvstore.cluster.membership.RingTokens.RANDOM);
        List<String> targets = new ArrayList<>(map.urls());
        targets.remove(url(0));
        MapRelay.Outcome outcome = network.run(MapRelay.handOn(map, targets, 5_000, network.node(url(0)), network));
        assertEquals(MapRelay.Outcome.ALL_TOOK_IT, outcome);
        assertEquals(new HashSet<>(targets), network.got.keySet());
        network.got.forEach((node, copies) -> assertEquals(1, copies, node + " got the map more than once"));
        network.sent.forEach((node, count) -> assertTrue(count <= MapRelay.FAN_OUT, node + " sent " + count));
        assertEquals(4, network.deepest, "hops to the farthest node");
    }

    @Test
    void theSenderLearnsWhichNodesFailedAndWhichAreUnknown() {
        // n1 is dead, n2 takes the map but hands nothing on (an older node), n3 takes it and never answers.
        Network network = new Network(Set.of(url(1)), Set.of(url(2)), Set.of(url(3)));
        ClusterMap map = ClusterMap.seed(nodes(41), 3, "ring", 16, io.kvstore.cluster.membership.RingTokens.RANDOM);
        List<String> targets = new ArrayList<>(map.urls());
        targets.remove(url(0));
        List<MapRelay.Hand> hands = MapRelay.split(targets, node -> map.state(node) == NodeState.NORMAL);
        MapRelay.Outcome outcome = network.run(MapRelay.handOn(map, targets, 5_000, network.node(url(0)), network));
        Set<String> unknown = new HashSet<>(outcome.unknown());
        Set<String> expectedUnknown = new HashSet<>();
        for (MapRelay.Hand hand : hands) {
            if (Set.of(url(1), url(2), url(3)).contains(hand.node())) {
                expectedUnknown.addAll(hand.passOn());
            }
        }
        assertEquals(expectedUnknown, unknown, "the shares of the nodes that did not hand on");
        assertEquals(Set.of(url(1), url(3)), new HashSet<>(outcome.failed()), "the dead node and the silent one");
        assertTrue(network.now <= 5_000, "answered within the time given: " + network.now);
    }

    private static String url(int i) {
        return "http://n" + i + ":1";
    }

    private static List<String> nodes(int count) {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            nodes.add(url(i));
        }
        return nodes;
    }

    /** Nodes on a network of 1 ms hops in virtual time; a node's transport relays as MapRelay says. */
    private static final class Network implements Scheduler {
        private final Set<String> dead;
        private final Set<String> old;
        private final Set<String> silent;
        final Map<String, Integer> got = new HashMap<>();
        final Map<String, Integer> sent = new HashMap<>();
        final Map<String, Integer> depth = new HashMap<>();
        int deepest;
        long now;
        private long order;
        private final PriorityQueue<long[]> queue = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                : Long.compare(a[1], b[1]));
        private final Map<Long, Runnable> tasks = new HashMap<>();

        Network(Set<String> dead, Set<String> old, Set<String> silent) {
            this.dead = dead;
            this.old = old;
            this.silent = silent;
        }

        @Override
        public void schedule(long delayMillis, Runnable task) {
            long id = order++;
            tasks.put(id, task);
            queue.add(new long[] {now + delayMillis, id});
        }

        <T> T run(CompletionStage<T> stage) {
            CompletableFuture<T> done = stage.toCompletableFuture();
            while (!done.isDone() && !queue.isEmpty()) {
                long[] next = queue.poll();
                now = next[0];
                tasks.remove(next[1]).run();
            }
            return done.join();
        }

        MembershipTransport node(String name) {
            return new MembershipTransport() {
                @Override
                public CompletionStage<MapRelay.Outcome> push(String node, ClusterMap map, List<String> passOn, long passOnMillis) {
                    sent.merge(name, 1, Integer::sum);
                    CompletableFuture<MapRelay.Outcome> answer = new CompletableFuture<>();
                    schedule(1, () -> {
                        if (dead.contains(node)) {
                            return;
                        }
                        got.merge(node, 1, Integer::sum);
                        int hops = depth.getOrDefault(name, 0) + 1;
                        depth.put(node, hops);
                        deepest = Math.max(deepest, hops);
                        if (silent.contains(node)) {
                            return;
                        }
                        CompletionStage<MapRelay.Outcome> relayed = old.contains(node) || passOn.isEmpty()
                                ? CompletableFuture.completedFuture(MapRelay.notPassedOn(old.contains(node) ? passOn : List.of()))
                                : MapRelay.handOn(map, passOn, passOnMillis, node(node), Network.this);
                        relayed.thenAccept(outcome -> schedule(1, () -> answer.complete(outcome)));
                    });
                    return answer;
                }

                @Override
                public CompletionStage<Boolean> answers(String node) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public CompletionStage<Void> startStream(String node, KeyMovement movement) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public CompletionStage<StreamProgress> streamProgress(String node, KeyMovement movement) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public CompletionStage<Void> cleanup(String node, long epoch) {
                    throw new UnsupportedOperationException();
                }
            };
        }
    }
}
