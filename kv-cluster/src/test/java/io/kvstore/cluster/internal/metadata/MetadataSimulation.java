package io.kvstore.cluster.internal.metadata;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntUnaryOperator;

/**
 * A deterministic simulation of the epoch log: nodes proposing, accepting and learning maps over a
 * network that delays, loses, duplicates and reorders messages and is cut into partitions (symmetric or
 * one-way), while nodes crash and restart with what they synced. Everything runs on one thread in
 * virtual time, driven by one seed, so a failing seed replays exactly.
 *
 * <p>A value names the metadata group of the epoch after it, so the group changes as the simulation goes.
 * The checks, after every event: no two nodes ever act on different values of one epoch, and no two
 * values are ever accepted by a majority of one epoch's group. After a chaos phase the network heals and
 * every node comes back: then a proposal must get its epoch decided and every node must learn it.
 */
final class MetadataSimulation {
    static final long CHAOS_MILLIS = 3_000;
    static final long HEAL_MILLIS = 30_000;
    private static final long PHASE_TIMEOUT_MILLIS = 40;
    private static final long PROPOSAL_TIMEOUT_MILLIS = 600;

    /** What went wrong, with the seed that replays it. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(message);
        }
    }

    private record Event(long time, long sequence, Runnable action) {
    }

    private final long seed;
    private final SplittableRandom random;
    private final IntUnaryOperator quorum;
    private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.time != b.time
            ? Long.compare(a.time, b.time) : Long.compare(a.sequence, b.sequence));
    private final List<Node> nodes = new ArrayList<>();
    private final Map<String, Node> byName = new HashMap<>();
    /** The value each epoch was acted on with, by the first node that did. */
    private final Map<Long, String> installed = new HashMap<>();
    /** Per epoch and ballot: the value accepted at it and by whom. */
    private final Map<Long, Map<Ballot, Accepts>> accepts = new HashMap<>();
    private final Map<Long, String> chosen = new HashMap<>();
    /** Directed links that lose everything ("a>b"). */
    private final Set<String> cut = new HashSet<>();
    private long now;
    private long sequence;
    private boolean chaos = true;
    private double loss;
    private double duplication;
    private long messages;

    private static final class Accepts {
        final String value;
        final Set<String> acceptors = new HashSet<>();

        Accepts(String value) {
            this.value = value;
        }
    }

    MetadataSimulation(long seed, IntUnaryOperator quorum) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.quorum = quorum;
        int count = 3 + random.nextInt(7);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add("n" + i);
        }
        String first = value(1, MetadataGroup.of(names), "seed");
        installed.put(1L, first);
        for (String name : names) {
            Node node = new Node(name, first);
            nodes.add(node);
            byName.put(name, node);
        }
        loss = random.nextDouble() * 0.2;
        duplication = random.nextDouble() * 0.1;
    }

    /** Runs the chaos phase, heals everything, and checks that the log moves on and every node learns it. */
    void run() {
        for (Node node : nodes) {
            at(random.nextLong(1, 20), node::tick);
        }
        at(0, this::chaos);
        runUntil(CHAOS_MILLIS);
        chaos = false;
        cut.clear();
        loss = 0;
        duplication = 0;
        for (Node node : nodes) {
            if (!node.up) {
                node.restart();
            }
        }
        long healedAt = now;
        long target = highestInstalled() + 1;
        while (now < healedAt + HEAL_MILLIS) {
            runUntil(now + 50);
            if (highestInstalled() >= target && everyNodeOn(highestInstalled())) {
                return;
            }
        }
        throw violation("no epoch past " + (target - 1) + " decided and learned by every node within " + HEAL_MILLIS
                + " ms of healing; nodes: " + describeNodes());
    }

    long messages() {
        return messages;
    }

    long epochs() {
        return highestInstalled();
    }

    private boolean everyNodeOn(long epoch) {
        for (Node node : nodes) {
            if (node.epoch != epoch) {
                return false;
            }
        }
        return true;
    }

    private long highestInstalled() {
        return installed.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private void runUntil(long time) {
        while (!events.isEmpty() && events.peek().time <= time) {
            Event event = events.poll();
            now = event.time;
            event.action.run();
        }
        now = Math.max(now, time);
    }

    private void at(long delay, Runnable action) {
        events.add(new Event(now + delay, sequence++, action));
    }

    /** Crashes and restarts nodes and cuts and mends links, at random, while the chaos phase lasts. */
    private void chaos() {
        if (!chaos) {
            return;
        }
        Node node = nodes.get(random.nextInt(nodes.size()));
        int what = random.nextInt(4);
        if (what == 0 && node.up) {
            node.crash();
            at(random.nextLong(10, 400), () -> {
                if (chaos && !node.up) {
                    node.restart();
                }
            });
        } else if (what == 1) {
            Node other = nodes.get(random.nextInt(nodes.size()));
            if (other != node) {
                cut.add(node.name + ">" + other.name);
                if (random.nextBoolean()) {
                    cut.add(other.name + ">" + node.name);
                }
            }
        } else if (what == 2 && !cut.isEmpty()) {
            List<String> links = new ArrayList<>(cut);
            cut.remove(links.get(random.nextInt(links.size())));
        } else if (what == 3 && random.nextInt(10) == 0) {
            // A whole partition: a random side cut off from the rest, both ways.
            Set<Node> side = new HashSet<>();
            for (Node each : nodes) {
                if (random.nextBoolean()) {
                    side.add(each);
                }
            }
            cut.clear();
            for (Node a : side) {
                for (Node b : nodes) {
                    if (!side.contains(b)) {
                        cut.add(a.name + ">" + b.name);
                        cut.add(b.name + ">" + a.name);
                    }
                }
            }
        }
        at(random.nextLong(5, 60), this::chaos);
    }

    /** Delivers {@code message} from {@code from} to {@code to} once, twice or never, after a random delay. */
    private void deliver(String from, String to, Runnable message) {
        messages++;
        if (cut.contains(from + ">" + to) || random.nextDouble() < loss) {
            return;
        }
        at(random.nextLong(1, 30), message);
        if (random.nextDouble() < duplication) {
            at(random.nextLong(1, 60), message);
        }
    }

    private static String value(long epoch, MetadataGroup next, String by) {
        return epoch + "|" + String.join(",", next.members()) + "|" + by;
    }

    private static long epochOf(String value) {
        return Long.parseLong(value.substring(0, value.indexOf('|')));
    }

    private static MetadataGroup groupAfter(String value) {
        String[] parts = value.split("\\|");
        return new MetadataGroup(Arrays.asList(parts[1].split(",")));
    }

    private void installedAt(Node node, long epoch, String value) {
        if (epochOf(value) != epoch) {
            throw violation(node.name + " installed a value of epoch " + epochOf(value) + " as epoch " + epoch + ": " + value);
        }
        String earlier = installed.putIfAbsent(epoch, value);
        if (earlier != null && !earlier.equals(value)) {
            throw violation("fork at epoch " + epoch + ": " + node.name + " acts on " + value + " but another node acted on "
                    + earlier);
        }
    }

    private void acceptedAt(String acceptor, long epoch, Ballot ballot, String value) {
        Accepts at = accepts.computeIfAbsent(epoch, e -> new HashMap<>()).computeIfAbsent(ballot, b -> new Accepts(value));
        if (!at.value.equals(value)) {
            throw violation("ballot " + ballot + " of epoch " + epoch + " carried two values: " + at.value + " and " + value);
        }
        at.acceptors.add(acceptor);
        String before = installed.get(epoch - 1);
        if (before != null && at.acceptors.size() >= groupAfter(before).quorum()) {
            String earlier = chosen.putIfAbsent(epoch, value);
            if (earlier != null && !earlier.equals(value)) {
                throw violation("two values chosen by majorities at epoch " + epoch + ": " + earlier + " and " + value);
            }
        }
    }

    private Violation violation(String message) {
        return new Violation("seed " + seed + ", at " + now + " ms: " + message + " (replay with -Dkv.seed=" + seed + ")");
    }

    private String describeNodes() {
        StringBuilder text = new StringBuilder();
        for (Node node : nodes) {
            text.append(node.name).append(node.up ? "" : "(down)").append("@").append(node.epoch).append(' ');
        }
        return text.toString().trim();
    }

    /** One simulated node: its synced state survives a crash, the rest does not. */
    private final class Node {
        final String name;
        /** Synced: the acceptor's state and the node's map. */
        byte[] acceptorState;
        long epoch;
        String value;
        boolean up = true;
        /** Counts lives: whatever was under way before a crash is dropped when it completes. */
        int life;
        EpochAcceptor acceptor;
        EpochProposer proposer;
        boolean proposing;
        int proposals;

        Node(String name, String first) {
            this.name = name;
            this.epoch = 1;
            this.value = first;
            restart();
        }

        void crash() {
            up = false;
            life++;
            acceptor = null;
            proposer = null;
            proposing = false;
        }

        void restart() {
            up = true;
            life++;
            try {
                acceptor = EpochAcceptor.open(new EpochAcceptor.Persistence() {
                    @Override
                    public byte[] load() {
                        return acceptorState;
                    }

                    @Override
                    public void save(byte[] state) {
                        acceptorState = state;
                    }
                }, () -> new EpochAcceptor.Committed(epoch, value.getBytes(StandardCharsets.UTF_8)));
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
            int lifeNow = life;
            proposer = new EpochProposer(name, this::send, (delay, task) -> at(delay, () -> {
                if (life == lifeNow) {
                    task.run();
                }
            }), () -> now, random.split(), PHASE_TIMEOUT_MILLIS, quorum);
            if (life > 1) {
                at(random.nextLong(1, 20), this::tick);
            }
        }

        CompletableFuture<EpochReply> send(String to, EpochRequest request) {
            CompletableFuture<EpochReply> reply = new CompletableFuture<>();
            int lifeNow = life;
            deliver(name, to, () -> byName.get(to).receive(request, name, answer -> deliver(to, name, () -> {
                if (life == lifeNow) {
                    reply.complete(answer);
                }
            })));
            return reply;
        }

        void receive(EpochRequest request, String from, java.util.function.Consumer<EpochReply> answer) {
            if (!up) {
                return;
            }
            EpochReply reply;
            try {
                reply = acceptor.handle(request);
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
            if (request instanceof EpochRequest.Accept accept && reply instanceof EpochReply.Accepted) {
                acceptedAt(name, accept.epoch(), accept.ballot(), new String(accept.value(), StandardCharsets.UTF_8));
            }
            answer.accept(reply);
        }

        /** What a node does from time to time: proposes a change, finishes one left accepted, or pulls a peer's map. */
        void tick() {
            if (!up) {
                return;
            }
            int lifeNow = life;
            int what = random.nextInt(10);
            if (!proposing) {
                Optional<EpochAcceptor.Pending> left = acceptor.acceptedAfter(epoch);
                if (left.isPresent() && what < 3) {
                    propose(new String(left.get().value(), StandardCharsets.UTF_8));
                } else if (what < (chaos ? 2 : 1)) {
                    List<String> candidates = new ArrayList<>();
                    for (Node node : nodes) {
                        candidates.add(node.name);
                    }
                    java.util.Collections.shuffle(candidates, new java.util.Random(random.nextLong()));
                    propose(value(epoch + 1, MetadataGroup.of(candidates.subList(0, 1 + random.nextInt(candidates.size()))),
                            name + "#" + ++proposals));
                }
            }
            if (what >= 7) {
                Node peer = nodes.get(random.nextInt(nodes.size()));
                deliver(name, peer.name, () -> {
                    if (peer.up) {
                        long theirs = peer.epoch;
                        String theirValue = peer.value;
                        deliver(peer.name, name, () -> {
                            if (life == lifeNow && theirs > epoch) {
                                learn(theirs, theirValue);
                            }
                        });
                    }
                });
            }
            at(random.nextLong(5, 25), () -> {
                if (life == lifeNow) {
                    tick();
                }
            });
        }

        private void propose(String proposal) {
            proposing = true;
            int lifeNow = life;
            long proposedEpoch = epoch + 1;
            proposer.propose(proposedEpoch, groupAfter(value), proposal.getBytes(StandardCharsets.UTF_8),
                    PROPOSAL_TIMEOUT_MILLIS).thenAccept(outcome -> {
                        if (life != lifeNow) {
                            return;
                        }
                        proposing = false;
                        if (outcome instanceof EpochProposer.Outcome.Chosen decided) {
                            learn(decided.epoch(), new String(decided.value(), StandardCharsets.UTF_8));
                        } else if (outcome instanceof EpochProposer.Outcome.Superseded later) {
                            learn(later.epoch(), new String(later.value(), StandardCharsets.UTF_8));
                        }
                    });
        }

        private void learn(long newEpoch, String newValue) {
            installedAt(this, newEpoch, newValue);
            if (newEpoch > epoch) {
                epoch = newEpoch;
                value = newValue;
            }
        }
    }
}
