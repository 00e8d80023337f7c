package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.internal.Scheduler;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

/**
 * How a new cluster map reaches every node without the node that made it sending it to each one: it
 * hands the map to at most {@value #FAN_OUT} nodes, each with a share of the others to hand it on to
 * the same way, so that the map leaves any node at most {@value #FAN_OUT} times and reaches a thousand
 * nodes in four hops (sent a thousand times over one node's link, a map of a thousand nodes took 0.4 s:
 * docs/BENCHMARKS.md, simulated clusters). Each node answers once the nodes of its share answered or
 * ran out of the time it gave them, telling which of them it could not reach, so the node that made the
 * map learns, as when it sent each copy itself, which nodes have to pull it later.
 *
 * <p>The nodes that hand the map on are taken among the {@code normal} nodes first: a joining or
 * leaving node, or a dead one being removed, is the likeliest not to answer, and a node that hands on
 * and does not answer leaves its share unknown, which is then sent the map directly.
 */
public final class MapRelay {
    /** The most nodes any node hands a map to itself. */
    public static final int FAN_OUT = 8;
    /** A node handing the map on gives the nodes it hands to this share of the time it was given. */
    static final double TIME_SHARE = 0.6;
    /** Below this time for its share, a node sends to each node of its share itself. */
    static final long MIN_RELAY_MILLIS = 250;

    private MapRelay() {
    }

    /** One node handed the map, and the nodes it is to hand it on to. */
    public record Hand(String node, List<String> passOn) {
        public Hand {
            passOn = List.copyOf(passOn);
        }
    }

    /**
     * What became of a map handed on: {@code failed}, nodes that were sent it and did not take it (they
     * pull it later), and {@code unknown}, nodes whose sender did not answer, which may or may not have it.
     */
    public record Outcome(List<String> failed, List<String> unknown) {
        public static final Outcome ALL_TOOK_IT = new Outcome(List.of(), List.of());

        public Outcome {
            failed = List.copyOf(failed);
            unknown = List.copyOf(unknown);
        }
    }

    /**
     * {@code targets} (normal nodes first, then the others, each group in the given order) as at most
     * {@link #FAN_OUT} hands: the first {@link #FAN_OUT} nodes, each with an equal share (to one node) of
     * the rest to pass on. Every target is in exactly one hand, as its node or in its {@code passOn}.
     *
     * @param targets the nodes to reach, without the sender
     * @param normal  which of them are {@code normal} in the map
     */
    public static List<Hand> split(List<String> targets, Predicate<String> normal) {
        return split(targets, normal, FAN_OUT);
    }

    /** {@link #split(List, Predicate)} into at most {@code fanOut} hands. */
    static List<Hand> split(List<String> targets, Predicate<String> normal, int fanOut) {
        List<String> ordered = new ArrayList<>(targets.size());
        for (String node : targets) {
            if (normal.test(node)) {
                ordered.add(node);
            }
        }
        for (String node : targets) {
            if (!normal.test(node)) {
                ordered.add(node);
            }
        }
        int hands = Math.min(fanOut, ordered.size());
        List<Hand> split = new ArrayList<>(hands);
        int rest = ordered.size() - hands;
        int from = hands;
        for (int i = 0; i < hands; i++) {
            int share = rest / hands + (i < rest % hands ? 1 : 0);
            split.add(new Hand(ordered.get(i), ordered.subList(from, from + share)));
            from += share;
        }
        return split;
    }

    /**
     * Hands {@code map} to every node of {@code targets}: to at most {@link #FAN_OUT} of them, each with a
     * share of the others to pass on and {@link #TIME_SHARE} of {@code millis} to do it in (to every node
     * itself when that would be under {@link #MIN_RELAY_MILLIS}). Completes within about {@code millis}.
     */
    public static CompletionStage<Outcome> handOn(ClusterMap map, List<String> targets, long millis,
                                                  MembershipTransport transport, Scheduler scheduler) {
        return handOn(map, targets, millis, FAN_OUT, transport, scheduler);
    }

    /** {@link #handOn(ClusterMap, List, long, MembershipTransport, Scheduler)} to at most {@code fanOut} nodes. */
    static CompletionStage<Outcome> handOn(ClusterMap map, List<String> targets, long millis, int fanOut,
                                           MembershipTransport transport, Scheduler scheduler) {
        long passOnMillis = (long) (millis * TIME_SHARE);
        List<Hand> hands;
        if (passOnMillis < MIN_RELAY_MILLIS) {
            hands = new ArrayList<>(targets.size());
            for (String node : targets) {
                hands.add(new Hand(node, List.of()));
            }
        } else {
            hands = split(targets, node -> map.contains(node) && map.state(node) == NodeState.NORMAL, fanOut);
        }
        List<CompletableFuture<Outcome>> answers = new ArrayList<>(hands.size());
        for (Hand hand : hands) {
            CompletableFuture<Outcome> answer = new CompletableFuture<>();
            scheduler.schedule(millis, () -> answer.complete(new Outcome(List.of(hand.node()), hand.passOn())));
            transport.push(hand.node(), map, hand.passOn(), passOnMillis).whenComplete((outcome, error) -> {
                if (error != null) {
                    answer.complete(new Outcome(List.of(hand.node()), hand.passOn()));
                } else {
                    answer.complete(outcome);
                }
            });
            answers.add(answer);
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(all -> {
            List<String> failed = new ArrayList<>();
            List<String> unknown = new ArrayList<>();
            for (CompletableFuture<Outcome> answer : answers) {
                Outcome outcome = answer.join();
                failed.addAll(outcome.failed());
                unknown.addAll(outcome.unknown());
            }
            return failed.isEmpty() && unknown.isEmpty() ? Outcome.ALL_TOOK_IT : new Outcome(failed, unknown);
        });
    }

    /** The outcome of a node that took the map but hands nothing on (an older node ignores what it is to pass on). */
    public static Outcome notPassedOn(List<String> passOn) {
        return passOn.isEmpty() ? Outcome.ALL_TOOK_IT : new Outcome(List.of(), passOn);
    }
}
