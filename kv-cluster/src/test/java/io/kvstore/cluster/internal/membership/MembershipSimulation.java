package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.internal.metadata.EpochAcceptor;
import io.kvstore.cluster.internal.metadata.EpochProposer;
import io.kvstore.cluster.internal.metadata.EpochReply;
import io.kvstore.cluster.internal.metadata.EpochRequest;
import io.kvstore.cluster.internal.metadata.MetadataGroup;
import io.kvstore.cluster.internal.metadata.NoMajorityException;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A deterministic simulation of membership: the real change driver ({@link MapChanges}), the real epoch
 * log ({@link EpochProposer}, {@link EpochAcceptor}), the real key movements and cleanup filter, on
 * simulated nodes holding simulated stores, over a network that delays, loses, duplicates and reorders
 * messages and is cut into partitions, while nodes crash and restart with what they synced, clients
 * write at quorum through random coordinators, and an operator joins, decommissions, removes (after
 * killing a node for good) and cancels. Everything runs on one thread in virtual time from one seed.
 *
 * <p>Checked after every event: no two nodes ever act on different maps of one epoch. After the chaos
 * the network heals, every crashed node restarts and the cluster must settle: no change in progress,
 * every node on one map. Then every node cleans up, and every acknowledged write must be held, at its
 * version or a later one, by a quorum of its replicas, and no key by a node that does not own it.
 *
 * <p>The coordinator is a model of the server's (quorum writes to the key's replicas and, during a
 * change, its pending replicas, with {@code ack + P} acknowledgements; replicas fence requests sent on a
 * map their own has moved the key's placement since); the driver, the log, the plans and the cleanup are
 * the product's code.
 */
final class MembershipSimulation {
    static final long CHAOS_MILLIS = 20_000;
    static final long SETTLE_MILLIS = 120_000;
    private static final long NETWORK_TIMEOUT_MILLIS = 300;
    private static final long PHASE_TIMEOUT_MILLIS = 50;
    private static final long COMMIT_TIMEOUT_MILLIS = 2_000;
    private static final long PULL_INTERVAL_MILLIS = 1_000;
    private static final long RESUME_INTERVAL_MILLIS = 3_000;
    private static final long LEFT_ACCEPTED_MILLIS = 2_000;
    private static final long UNREACHABLE_MILLIS = 4_000;
    private static final int STREAM_BATCH = 8;
    private static final int SMALL_MESSAGE_BYTES = 200;
    private static final String[] PARTITIONERS = {"ring", "rendezvous", "jump", "modn", "maglev"};

    /** A bug planted on purpose, to show the simulation finds it. */
    enum PlantedBug {
        NONE,
        /** A decommission streams only from the leaving node, as before every owner was asked. */
        ONLY_THE_LEAVING_NODE_STREAMS
    }

    /** What went wrong, with the seed that replays it. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(message);
        }
    }

    private record Event(long time, long sequence, Runnable action) {
    }

    /** A replica's answer to a read: the version it holds (null if none), or its newer map when it refuses. */
    private record ReadAnswer(Version version, ClusterMap refusedWith) {
    }

    private record Version(long timestamp, String value) {
        boolean newerThan(Version other) {
            return other == null || timestamp > other.timestamp
                    || (timestamp == other.timestamp && value.compareTo(other.value) > 0);
        }
    }

    private final long seed;
    private final SplittableRandom random;
    private final PlantedBug bug;
    private final int valueBytes;
    /** How many keys the clients write and read. */
    private final int keys;
    private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.time != b.time
            ? Long.compare(a.time, b.time) : Long.compare(a.sequence, b.sequence));
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final List<String> spares = new ArrayList<>();
    private final Map<Long, String> installed = new HashMap<>();
    /** The newest acknowledged version of each key. */
    private final Map<String, Version> acknowledged = new TreeMap<>();
    private final Set<String> cut = new HashSet<>();
    /** The scale runs' settings; null in the chaos runs. */
    private final Scale scale;
    /** When each node's link is free to send the next message (scale runs). */
    private final Map<String, Long> linkFreeAt = new HashMap<>();
    private final Map<String, Integer> mapBytes = new HashMap<>();
    /** When each epoch was first acted on, and when the last node learned it (microseconds). */
    private final Map<Long, Long> firstInstalled = new HashMap<>();
    private final Map<Long, Long> lastLearned = new HashMap<>();
    private long keysScanned;
    private final String partitioner;
    private final int replicationFactor;
    /** Virtual time, in microseconds: a hop of the scale runs takes half a millisecond. */
    private long micros;
    private long sequence;
    private boolean chaos = true;
    private double loss;
    private double duplication;
    private long timestamps;
    /** Nodes killed for good. */
    private final Set<String> dead = new HashSet<>();
    /** The node killed for good that the operator has yet to see removed; null when none. */
    private String deadForGood;
    private int writesAcknowledged;
    private int writesFailed;
    private int readsAnswered;
    private Violation found;
    private int changesStarted;
    /** How the operator's requests were answered, counted by answer. */
    final Map<String, Integer> outcomes = new TreeMap<>();
    private long keysStreamed;

    MembershipSimulation(long seed, PlantedBug bug) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.bug = bug;
        this.scale = null;
        this.valueBytes = 100;
        String drawn = PARTITIONERS[random.nextInt(PARTITIONERS.length)];
        // One run in four writes and reads a few hot keys under modn, whose changes move most keys to
        // replicas they share no quorum with: where a stale read would hide.
        boolean hot = random.nextInt(4) == 0;
        this.partitioner = hot ? "modn" : drawn;
        this.keys = hot ? 20 : 400;
        this.replicationFactor = 2 + random.nextInt(2);
        int count = 5 + random.nextInt(3);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add("http://n" + i + ":1");
        }
        for (int i = count; i < count + 3; i++) {
            spares.add("http://n" + i + ":1");
        }
        seedNodes(ClusterMap.seed(names, replicationFactor, partitioner, 16));
        loss = random.nextDouble() * 0.05;
        duplication = random.nextDouble() * 0.05;
    }

    /** A scale run: no chaos, no clients; {@link #runScale} joins one node to a cluster holding data. */
    MembershipSimulation(long seed, Scale scale) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.bug = PlantedBug.NONE;
        this.scale = scale;
        this.valueBytes = scale.valueBytes();
        this.keys = 0;
        this.partitioner = scale.partitioner();
        this.replicationFactor = scale.replicationFactor();
        this.chaos = false;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < scale.nodes(); i++) {
            names.add("http://n" + i + ":1");
        }
        spares.add("http://n" + scale.nodes() + ":1");
        ClusterMap first = ClusterMap.seed(names, replicationFactor, partitioner, 16);
        seedNodes(first);
        Partitioner placement = first.placement();
        long keys = (long) scale.keysPerNode() * scale.nodes() / replicationFactor;
        for (long i = 0; i < keys; i++) {
            String key = "k" + i;
            Version version = new Version(++timestamps, "v");
            for (int replica : placement.replicas(key.getBytes(StandardCharsets.UTF_8), replicationFactor)) {
                nodes.get(placement.nodes().get(replica)).store.put(key, version);
            }
        }
    }

    private void seedNodes(ClusterMap first) {
        installed.put(first.epoch(), ClusterMapCodec.toJson(first));
        for (Member member : first.members()) {
            nodes.put(member.url(), new Node(member.url(), first));
        }
    }

    /**
     * The settings of a scale run.
     *
     * @param keysPerNode keys each node holds, as one of the replication factor's replicas
     */
    record Scale(int nodes, int replicationFactor, String partitioner, int keysPerNode, int valueBytes) {
        /** One hop of the simulated network. */
        static final long HOP_MICROS = 500;
        /** What each node's link sends per second. */
        static final long BYTES_PER_SECOND = 100_000_000L;
    }

    /**
     * What a scale run measured.
     *
     * @param joinMillis    from the operator's request to the change done
     * @param learnMicros   from the first node acting on the final map to the last node learning it
     * @param keysStreamed  copies of keys sent
     * @param keysIdeal     one copy per key and node that becomes its replica
     * @param keysScanned   keys the senders read to find them
     * @param mapBytes      the final map's size on the wire
     */
    record ScaleResult(long joinMillis, long learnMicros, long keysStreamed, long keysIdeal, long keysScanned, int mapBytes) {
    }

    /** Joins one node and measures how long the change and the map's spreading take, and what moved. */
    ScaleResult runScale() {
        for (Node node : nodes.values()) {
            node.startTimers();
        }
        runUntil(1_000);
        ClusterMap before = nodes.get("http://n0:1").map;
        String url = spares.remove(0);
        Node joining = new Node(url, before);
        nodes.put(url, joining);
        joining.startTimers();
        long startedAt = micros;
        Node claimant = nodes.get(before.claimant());
        CompletableFuture<MapChange> started = claimant.changes.start(ChangeOperation.JOIN, url, false).toCompletableFuture();
        long deadline = now() + 600_000;
        while (!(started.isDone() && !started.isCompletedExceptionally() && MapChange.DONE.equals(started.join().status()))) {
            if (now() > deadline || started.isCompletedExceptionally()) {
                throw violation("the join did not complete: " + (started.isCompletedExceptionally()
                        ? started.handle((c, e) -> e).join() : started.join().status() + " " + started.join().reason()));
            }
            runUntil(now() + 10);
        }
        long doneAt = micros;
        ClusterMap after = claimant.map;
        while (!everyNodeOn(after.epoch())) {
            if (now() > deadline) {
                throw violation("not every node learned epoch " + after.epoch());
            }
            runUntil(now() + 10);
        }
        return new ScaleResult((doneAt - startedAt) / 1000, lastLearned.get(after.epoch()) - firstInstalled.get(after.epoch()),
                keysStreamed, idealCopies(before, after), keysScanned, bytesOf(after));
    }

    private boolean everyNodeOn(long epoch) {
        for (Node node : nodes.values()) {
            if (node.map.epoch() < epoch) {
                return false;
            }
        }
        return true;
    }

    /** One copy per key and node that is its replica after the change and was not before. */
    private long idealCopies(ClusterMap before, ClusterMap after) {
        Partitioner was = before.placement();
        Partitioner will = after.placement();
        Set<String> keys = new java.util.TreeSet<>();
        for (Node node : nodes.values()) {
            keys.addAll(node.store.keySet());
        }
        long copies = 0;
        for (String key : keys) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            Set<String> old = new HashSet<>();
            for (int replica : was.replicas(bytes, replicationFactor)) {
                old.add(was.nodes().get(replica));
            }
            for (int replica : will.replicas(bytes, replicationFactor)) {
                if (!old.contains(will.nodes().get(replica))) {
                    copies++;
                }
            }
        }
        return copies;
    }

    int changesStarted() {
        return changesStarted;
    }

    /** Changes completed, read from the committed maps: a join's newcomer became normal, a leaving node left. */
    int changesDone() {
        int done = 0;
        for (Map.Entry<Long, String> epoch : installed.entrySet()) {
            String next = installed.get(epoch.getKey() + 1);
            if (next == null) {
                continue;
            }
            ClusterMap before = ClusterMapCodec.fromJson(epoch.getValue());
            ClusterMap after = ClusterMapCodec.fromJson(next);
            for (Member member : before.members()) {
                boolean joined = member.state() == NodeState.JOINING && after.contains(member.url())
                        && after.state(member.url()) == NodeState.NORMAL;
                boolean left = member.state() == NodeState.LEAVING && !after.contains(member.url());
                if (joined || left) {
                    done++;
                }
            }
        }
        return done;
    }

    String describe() {
        return "seed " + seed + ": " + partitioner + " RF " + replicationFactor + ", " + changesStarted + " changes started, " + changesDone() + " done, "
                + writesAcknowledged + " writes acknowledged, " + writesFailed + " failed, " + readsAnswered + " quorum reads checked, " + keysStreamed
                + " keys streamed, final map " + settledMap();
    }

    /** Runs the chaos, heals, lets the cluster settle, cleans up and checks what every node holds. */
    void run() {
        for (Node node : nodes.values()) {
            node.startTimers();
        }
        at(random.nextLong(200, 1_000), this::operator);
        at(0, this::chaos);
        at(0, this::client);
        runUntil(CHAOS_MILLIS);
        chaos = false;
        cut.clear();
        loss = 0;
        duplication = 0;
        for (Node node : nodes.values()) {
            if (!node.up && !dead.contains(node.name)) {
                node.restart();
            }
        }
        long healedAt = now();
        while (!settled()) {
            if (now() > healedAt + SETTLE_MILLIS) {
                throw violation("the cluster did not settle within " + SETTLE_MILLIS + " ms of healing: " + describeNodes());
            }
            runUntil(now() + 100);
        }
        ClusterMap map = settledMap();
        for (String owner : map.owners()) {
            nodes.get(owner).cleanUp(map);
        }
        runUntil(now() + 5_000);
        checkHolders(map);
    }

    private boolean settled() {
        String map = null;
        for (Node node : live()) {
            if (node.map.inTransition() || node.changes.running().isPresent()) {
                return false;
            }
            if (!node.map.contains(node.name)) {
                continue;
            }
            String json = node.map.epoch() + "/" + node.map.fingerprintText();
            if (map != null && !map.equals(json)) {
                return false;
            }
            map = json;
        }
        // A node killed for good must have been removed: every member of the settled map is up.
        for (String member : settledMap().urls()) {
            if (dead.contains(member)) {
                return false;
            }
        }
        return true;
    }

    private ClusterMap settledMap() {
        ClusterMap newest = null;
        for (Node node : nodes.values()) {
            if (newest == null || node.map.epoch() > newest.epoch()) {
                newest = node.map;
            }
        }
        return newest;
    }

    private List<Node> live() {
        List<Node> live = new ArrayList<>();
        for (Node node : nodes.values()) {
            if (node.up) {
                live.add(node);
            }
        }
        return live;
    }

    private void checkHolders(ClusterMap map) {
        Partitioner placement = map.placement();
        int quorum = map.replicationFactor() / 2 + 1;
        for (Map.Entry<String, Version> write : acknowledged.entrySet()) {
            byte[] key = write.getKey().getBytes(StandardCharsets.UTF_8);
            int holders = 0;
            List<String> replicas = new ArrayList<>();
            for (int replica : placement.replicas(key, Math.min(map.replicationFactor(), placement.nodes().size()))) {
                String name = placement.nodes().get(replica);
                replicas.add(name);
                Version held = nodes.get(name).store.get(write.getKey());
                if (held != null && held.timestamp >= write.getValue().timestamp) {
                    holders++;
                }
            }
            if (holders < quorum) {
                throw violation("key " + write.getKey() + " acknowledged at " + write.getValue() + " is held by " + holders
                        + " of its replicas " + replicas + " (quorum " + quorum + "); holders: " + holdersOf(write.getKey()));
            }
        }
        for (String owner : map.owners()) {
            OwnedKeys owned = new OwnedKeys(map, owner);
            for (String key : nodes.get(owner).store.keySet()) {
                if (!owned.keeps(key.getBytes(StandardCharsets.UTF_8))) {
                    throw violation(owner + " still holds " + key + " after its cleanup, which it does not own");
                }
            }
        }
    }

    private String holdersOf(String key) {
        StringBuilder text = new StringBuilder();
        for (Node node : nodes.values()) {
            Version held = node.store.get(key);
            if (held != null) {
                text.append(node.name).append('=').append(held.timestamp).append(' ');
            }
        }
        return text.toString().trim();
    }

    /** Virtual time in milliseconds, as the nodes' clocks read it. */
    private long now() {
        return micros / 1000;
    }

    private void runUntil(long timeMillis) {
        long until = timeMillis * 1000;
        while (!events.isEmpty() && events.peek().time <= until) {
            Event event = events.poll();
            micros = event.time;
            event.action.run();
            if (found != null) {
                throw found;
            }
        }
        micros = Math.max(micros, until);
    }

    private void at(long delayMillis, Runnable action) {
        atMicros(delayMillis * 1000, action);
    }

    private void atMicros(long delayMicros, Runnable action) {
        events.add(new Event(micros + delayMicros, sequence++, action));
    }

    /** Crashes and restarts nodes and cuts and mends links while the chaos lasts. */
    private void chaos() {
        if (!chaos) {
            return;
        }
        List<Node> all = new ArrayList<>(nodes.values());
        Node node = all.get(random.nextInt(all.size()));
        int what = random.nextInt(6);
        if (what == 0 && node.up && !dead.contains(node.name)) {
            node.crash();
            at(random.nextLong(50, 3_000), () -> {
                if (!node.up && !dead.contains(node.name)) {
                    node.restart();
                }
            });
        } else if (what == 1) {
            Node other = all.get(random.nextInt(all.size()));
            if (other != node) {
                cut.add(node.name + ">" + other.name);
                if (random.nextBoolean()) {
                    cut.add(other.name + ">" + node.name);
                }
                at(random.nextLong(100, 3_000), () -> {
                    cut.remove(node.name + ">" + other.name);
                    cut.remove(other.name + ">" + node.name);
                });
            }
        } else if (what == 2 && random.nextInt(8) == 0) {
            // A whole partition for a while: a random side cut off from the rest, both ways.
            Set<String> side = new HashSet<>();
            for (Node each : all) {
                if (random.nextBoolean()) {
                    side.add(each.name);
                }
            }
            Set<String> links = new HashSet<>();
            for (String a : side) {
                for (Node b : all) {
                    if (!side.contains(b.name)) {
                        links.add(a + ">" + b.name);
                        links.add(b.name + ">" + a);
                    }
                }
            }
            cut.addAll(links);
            at(random.nextLong(500, 4_000), () -> cut.removeAll(links));
        }
        at(random.nextLong(200, 1_500), this::chaos);
    }

    /** The operator: a join, a decommission, a removal of a node killed for good, or a cancel, now and then. */
    private void operator() {
        if (deadForGood != null && !settledMap().contains(deadForGood)) {
            deadForGood = null;
        }
        if (!chaos && deadForGood == null) {
            return;
        }
        at(random.nextLong(500, 3_000), this::operator);
        Node claimant = nodes.get(settledMap().claimant());
        if (claimant == null || !claimant.up) {
            return;
        }
        ClusterMap map = claimant.map;
        // Once the chaos is over the operator only sees the dead node removed.
        int what = chaos ? random.nextInt(10) : 9;
        if (what == 0) {
            for (Node node : live()) {
                node.changes.running().ifPresent(change -> {
                    try {
                        node.changes.cancel(change.id());
                    } catch (ChangeRefusedException refused) {
                        // too late, or over: as an operator would be told
                    }
                });
            }
            return;
        }
        if (map.inTransition()) {
            return;
        }
        List<String> normal = new ArrayList<>();
        for (Member member : map.members()) {
            if (member.state() == NodeState.NORMAL) {
                normal.add(member.url());
            }
        }
        ChangeOperation operation;
        String url;
        if (deadForGood != null && map.contains(deadForGood)) {
            operation = ChangeOperation.REMOVE;
            url = deadForGood;
        } else if (what < 4 && !spares.isEmpty()) {
            operation = ChangeOperation.JOIN;
            url = spares.remove(0);
            Node joining = new Node(url, map);
            nodes.put(url, joining);
            joining.startTimers();
        } else if (normal.size() <= replicationFactor + 1) {
            return;
        } else if (what < 7) {
            operation = ChangeOperation.DECOMMISSION;
            url = normal.get(random.nextInt(normal.size()));
            if (!nodes.get(url).up) {
                return; // asked of the node itself, which does not answer
            }
        } else if (deadForGood == null) {
            String victim = normal.get(random.nextInt(normal.size()));
            if (victim.equals(claimant.name)) {
                return;
            }
            deadForGood = victim;
            dead.add(victim);
            nodes.get(victim).crash();
            operation = ChangeOperation.REMOVE;
            url = victim;
        } else {
            return;
        }
        changesStarted++;
        Node driver = nodes.get(MapChanges.claimantFor(map, operation, url));
        if (driver.up) {
            driver.changes.start(operation, url, false).whenComplete((change, error) -> {
                Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
                String outcome = cause == null ? "started" : cause instanceof ChangeRefusedException refused
                        ? "refused " + refused.status() : String.valueOf(cause);
                outcomes.merge(operation.id() + " " + outcome, 1, Integer::sum);
            });
        }
    }

    /** Clients writing at quorum through a random live coordinator. */
    private void client() {
        if (!chaos) {
            return;
        }
        at(random.nextLong(2, 20), this::client);
        List<Node> candidates = new ArrayList<>();
        for (Node node : live()) {
            if (node.map.contains(node.name) && node.map.state(node.name) != NodeState.JOINING) {
                candidates.add(node);
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        Node coordinator = candidates.get(random.nextInt(candidates.size()));
        String key = "k" + random.nextInt(keys);
        Version version = new Version(++timestamps, "v" + timestamps);
        if (random.nextBoolean()) {
            coordinator.write(key, version, 3);
        } else {
            coordinator.read(key, acknowledged.get(key), 3);
        }
    }

    /**
     * Delivers {@code message} of {@code bytes} from {@code from} to {@code to}: in the chaos runs once,
     * twice or never, after a random delay; in the scale runs after the hop and the time the sender's
     * link takes to send it behind what it sends already.
     */
    private void deliver(String from, String to, int bytes, Runnable message) {
        if (scale != null) {
            long start = Math.max(micros, linkFreeAt.getOrDefault(from, 0L));
            long sent = start + bytes * 1_000_000L / Scale.BYTES_PER_SECOND;
            linkFreeAt.put(from, sent);
            atMicros(sent - micros + Scale.HOP_MICROS, message);
            return;
        }
        if (cut.contains(from + ">" + to) || random.nextDouble() < loss) {
            return;
        }
        at(random.nextLong(1, 15), message);
        if (random.nextDouble() < duplication) {
            at(random.nextLong(1, 40), message);
        }
    }

    private <T> CompletableFuture<T> request(Node from, String to, java.util.function.Function<Node, T> handler) {
        return request(from, to, SMALL_MESSAGE_BYTES, handler, reply -> SMALL_MESSAGE_BYTES);
    }

    /**
     * A request from {@code from} to {@code to}, answered by {@code handler} there; the answer comes back
     * over the network, to the life of {@code from} that asked. Never completes if either is lost.
     */
    private <T> CompletableFuture<T> request(Node from, String to, int bytes, java.util.function.Function<Node, T> handler,
                                             java.util.function.ToIntFunction<T> replyBytes) {
        return requestAsync(from, to, bytes, target -> CompletableFuture.completedFuture(handler.apply(target)), replyBytes);
    }

    /**
     * {@link #request(Node, String, int, java.util.function.Function, java.util.function.ToIntFunction)} whose
     * handler answers later: the answer leaves {@code to} when the handler's stage completes, if {@code to}
     * is still in the life that took the request.
     */
    private <T> CompletableFuture<T> requestAsync(Node from, String to, int bytes,
                                                  java.util.function.Function<Node, CompletionStage<T>> handler,
                                                  java.util.function.ToIntFunction<T> replyBytes) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        int life = from.life;
        deliver(from.name, to, bytes, () -> {
            Node target = nodes.get(to);
            if (target == null || !target.up) {
                return;
            }
            int targetLife = target.life;
            handler.apply(target).thenAccept(reply -> {
                if (target.life != targetLife) {
                    return;
                }
                deliver(to, from.name, replyBytes.applyAsInt(reply), () -> {
                    if (from.life == life) {
                        answer.complete(reply);
                    }
                });
            });
        });
        return answer;
    }

    /**
     * How many nodes a node hands a map to itself: the product's in the scale runs; two in the chaos runs,
     * whose clusters of 5-10 nodes would otherwise be sent every map directly, so that maps handed on
     * meet the loss, duplication, partitions and crashes too.
     */
    private int relayFanOut() {
        return scale != null ? MapRelay.FAN_OUT : 2;
    }

    /** The size of {@code map} as JSON on the wire. */
    private int bytesOf(ClusterMap map) {
        return map == null ? SMALL_MESSAGE_BYTES : mapBytes.computeIfAbsent(map.epoch() + "/" + map.fingerprintText(),
                key -> bytes(map).length);
    }

    private void installedAt(Node node, ClusterMap map) {
        firstInstalled.putIfAbsent(map.epoch(), micros);
        lastLearned.put(map.epoch(), micros);
        if (scale != null) {
            return; // no chaos, one driver: a fork is the chaos runs' question, and JSON of a thousand nodes is slow
        }
        String json = ClusterMapCodec.toJson(map);
        String earlier = installed.putIfAbsent(map.epoch(), json);
        if (earlier != null && !earlier.equals(json)) {
            throw violation("fork at epoch " + map.epoch() + ": " + node.name + " acts on " + json + " but another node acted on "
                    + earlier);
        }
    }

    /**
     * A violation, kept as well as returned: one thrown inside a future's callback would end in that
     * future, so the event loop throws the first one found after the event that found it.
     */
    private Violation violation(String message) {
        Violation violation = new Violation("seed " + seed + " (" + partitioner + ", RF " + replicationFactor + "), at " + now()
                + " ms: " + message + " (replay with -Dkv.seed=" + seed + ")");
        if (found == null) {
            found = violation;
        }
        return violation;
    }

    private String describeNodes() {
        StringBuilder text = new StringBuilder();
        for (Node node : nodes.values()) {
            text.append(node.name).append(node.up ? "" : "(down)").append('@').append(node.map.epoch())
                    .append(node.map.inTransition() ? "*" : "");
            if (node.up) {
                node.changes.running().ifPresent(change -> text.append(" driving the ").append(change).append(" (")
                        .append(change.step()).append(", ").append(change.streamsDone()).append('/').append(change.streams())
                        .append(" streams)"));
            }
            text.append(' ');
        }
        return text + " newest map " + settledMap();
    }

    /** A stream of one movement at its source: where it is, and how it ended. */
    private static final class SourceStream {
        StreamProgress progress = StreamProgress.RUNNING;
        long entries;
    }

    /** One simulated node: its map, store, acceptor state and stream checkpoints survive a crash; the rest does not. */
    private final class Node implements MapLog, MembershipTransport {
        final String name;
        /** Synced state. */
        ClusterMap map;
        byte[] acceptorState;
        final TreeMap<String, Version> store = new TreeMap<>();
        final Map<String, String> checkpoints = new HashMap<>();
        final PlacementHistory placements = new PlacementHistory();
        /** State of one life. */
        boolean up;
        int life;
        EpochAcceptor acceptor;
        EpochProposer proposer;
        MapChanges changes;
        io.kvstore.cluster.internal.Scheduler scheduler;
        final Map<String, SourceStream> streams = new HashMap<>();
        long leftAcceptedSince;
        boolean finishing;

        Node(String name, ClusterMap map) {
            this.name = name;
            this.map = map;
            placements.add(map);
            restart();
        }

        void crash() {
            up = false;
            life++;
            streams.clear();
            acceptor = null;
            proposer = null;
            changes = null;
        }

        void restart() {
            up = true;
            life++;
            int lifeNow = life;
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
                }, () -> new EpochAcceptor.Committed(map.epoch(), bytes(map)));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            scheduler = (delay, task) -> at(delay, () -> {
                if (life == lifeNow) {
                    task.run();
                }
            });
            proposer = new EpochProposer(name, this::vote, scheduler, MembershipSimulation.this::now, random.split(),
                    PHASE_TIMEOUT_MILLIS);
            changes = new MapChanges(name, this, this, scheduler, MembershipSimulation.this::now, UNREACHABLE_MILLIS);
            changes.relayFanOut(relayFanOut());
            if (life > 1) {
                startTimers();
            }
        }

        void startTimers() {
            int lifeNow = life;
            at(random.nextLong(1, PULL_INTERVAL_MILLIS), () -> tick(lifeNow, 0));
        }

        /** The node's periodic work: pull a peer's map, finish a commit left accepted, resume a change. */
        private void tick(int lifeNow, int ticks) {
            if (life != lifeNow) {
                return;
            }
            List<String> peers = new ArrayList<>(map.urls());
            peers.remove(name);
            if (!peers.isEmpty()) {
                String peer = peers.get(random.nextInt(peers.size()));
                request(this, peer, SMALL_MESSAGE_BYTES, target -> target.map, MembershipSimulation.this::bytesOf)
                        .thenAccept(this::learn);
            }
            finishLeftAccepted();
            if (ticks % (RESUME_INTERVAL_MILLIS / PULL_INTERVAL_MILLIS) == 0) {
                changes.resume();
            }
            at(PULL_INTERVAL_MILLIS, () -> tick(lifeNow, ticks + 1));
        }

        private void finishLeftAccepted() {
            Optional<EpochAcceptor.Pending> left = acceptor.acceptedAfter(map.epoch());
            if (left.isEmpty()) {
                leftAcceptedSince = 0;
                return;
            }
            if (leftAcceptedSince == 0) {
                leftAcceptedSince = now();
            }
            if (now() - leftAcceptedSince < LEFT_ACCEPTED_MILLIS || finishing) {
                return;
            }
            finishing = true;
            int lifeNow = life;
            ClusterMap current = map;
            proposer.propose(left.get().epoch(), MetadataGroup.after(current), left.get().value(), COMMIT_TIMEOUT_MILLIS)
                    .thenAccept(outcome -> {
                        if (life != lifeNow) {
                            return;
                        }
                        finishing = false;
                        leftAcceptedSince = 0;
                        decided(outcome).ifPresent(this::learn);
                    });
        }

        private Optional<ClusterMap> decided(EpochProposer.Outcome outcome) {
            if (outcome instanceof EpochProposer.Outcome.Chosen chosen) {
                return Optional.of(parse(chosen.value()));
            }
            if (outcome instanceof EpochProposer.Outcome.Superseded later) {
                return Optional.of(parse(later.value()));
            }
            return Optional.empty();
        }

        private CompletionStage<EpochReply> vote(String to, EpochRequest request) {
            int bytes = request instanceof EpochRequest.Accept accept ? accept.value().length : SMALL_MESSAGE_BYTES;
            return request(this, to, bytes, target -> {
                try {
                    return target.acceptor.handle(request);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }, reply -> reply instanceof EpochReply.Decided decided ? decided.value().length
                    : reply instanceof EpochReply.Promise promise && promise.value() != null ? promise.value().length
                    : SMALL_MESSAGE_BYTES);
        }

        /** Adopts {@code newer} if it is newer: a committed map, from the log, a push, a pull or a request. */
        void learn(ClusterMap newer) {
            if (newer != null && newer.epoch() > map.epoch()) {
                installedAt(this, newer);
                map = newer;
                placements.add(newer);
            }
        }

        // MapLog

        @Override
        public ClusterMap map() {
            return map;
        }

        @Override
        public CompletionStage<Boolean> commit(long expectedEpoch, ClusterMap next, boolean force) {
            if (map.epoch() != expectedEpoch || next.epoch() != expectedEpoch + 1) {
                return CompletableFuture.completedFuture(false);
            }
            return proposer.propose(next.epoch(), MetadataGroup.after(map), bytes(next), COMMIT_TIMEOUT_MILLIS)
                    .thenApply(outcome -> {
                        Optional<ClusterMap> decided = decided(outcome);
                        if (decided.isEmpty()) {
                            EpochProposer.Outcome.NoQuorum none = (EpochProposer.Outcome.NoQuorum) outcome;
                            throw new java.util.concurrent.CompletionException(new NoMajorityException(none.reason(),
                                    none.valueSent()));
                        }
                        learn(decided.get());
                        return outcome instanceof EpochProposer.Outcome.Chosen chosen && chosen.ours();
                    });
        }

        // MembershipTransport

        @Override
        public CompletionStage<MapRelay.Outcome> push(String node, ClusterMap pushed, List<String> passOn, long passOnMillis) {
            return requestAsync(this, node, bytesOf(pushed) + passOn.size() * SMALL_MESSAGE_BYTES / 4, target -> {
                target.learn(pushed);
                return passOn.isEmpty() ? CompletableFuture.completedFuture(MapRelay.Outcome.ALL_TOOK_IT)
                        : MapRelay.handOn(pushed, passOn, passOnMillis, relayFanOut(), target, target.scheduler);
            }, reply -> SMALL_MESSAGE_BYTES);
        }

        @Override
        public CompletionStage<Boolean> answers(String node) {
            return request(this, node, target -> true);
        }

        @Override
        public CompletionStage<Void> startStream(String node, KeyMovement movement) {
            return request(this, node, target -> {
                target.stream(movement);
                return null;
            });
        }

        @Override
        public CompletionStage<StreamProgress> streamProgress(String node, KeyMovement movement) {
            return request(this, node, target -> {
                SourceStream stream = target.streams.get(movement.streamName());
                return stream == null ? StreamProgress.UNKNOWN : stream.progress;
            });
        }

        @Override
        public CompletionStage<Void> cleanup(String node, long epoch) {
            return request(this, node, target -> {
                if (target.map.epoch() >= epoch && !target.map.inTransition() && target.map.owners().contains(target.name)) {
                    target.cleanUp(target.map);
                }
                return null;
            });
        }

        /** Drops what this node does not own under {@code settled} nor, read per key, under its newest map. */
        void cleanUp(ClusterMap settled) {
            CleanupFilter filter = new CleanupFilter(settled, name, () -> map);
            store.keySet().removeIf(key -> !filter.keeps(key.getBytes(StandardCharsets.UTF_8)));
        }

        /** Starts (or joins) this node's stream of {@code movement}, resuming after its checkpoint. */
        void stream(KeyMovement movement) {
            SourceStream running = streams.get(movement.streamName());
            if (running != null && running.progress.state() != StreamProgress.State.FAILED) {
                return;
            }
            SourceStream stream = new SourceStream();
            streams.put(movement.streamName(), stream);
            boolean decommission = !movement.fromSurvivors() && movement.before().members().stream()
                    .anyMatch(member -> member.state() == NodeState.LEAVING);
            if (bug == PlantedBug.ONLY_THE_LEAVING_NODE_STREAMS && decommission
                    && movement.before().state(name) != NodeState.LEAVING) {
                stream.progress = StreamProgress.done(0);
                return;
            }
            if (!movement.maySend(movement.indexOf(name))) {
                // As KeyStreamer: a node the ring's tokens show to lose nothing reads nothing.
                stream.progress = StreamProgress.done(0);
                return;
            }
            int lifeNow = life;
            at(1, () -> streamBatch(movement, stream, lifeNow));
        }

        private void streamBatch(KeyMovement movement, SourceStream stream, int lifeNow) {
            if (life != lifeNow) {
                return;
            }
            String from = checkpoints.get(movement.streamName());
            Map<String, Map<String, Version>> batches = new HashMap<>();
            int self = movement.indexOf(name);
            int[] out = new int[8];
            int[] scratchB = new int[8];
            int[] scratchA = new int[8];
            String last = null;
            int scanned = 0;
            for (Map.Entry<String, Version> entry : (from == null ? store : store.tailMap(from, false)).entrySet()) {
                if (scanned++ == STREAM_BATCH) {
                    break;
                }
                keysScanned++;
                last = entry.getKey();
                int targets = movement.targets(entry.getKey().getBytes(StandardCharsets.UTF_8), self, out, scratchB, scratchA);
                for (int i = 0; i < targets; i++) {
                    batches.computeIfAbsent(movement.afterNodes().get(out[i]), n -> new TreeMap<>())
                            .put(entry.getKey(), entry.getValue());
                }
            }
            if (last == null) {
                stream.progress = StreamProgress.done(stream.entries);
                return;
            }
            String checkpoint = last;
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (Map.Entry<String, Map<String, Version>> batch : batches.entrySet()) {
                CompletableFuture<Void> applied = new CompletableFuture<>();
                at(NETWORK_TIMEOUT_MILLIS, () -> applied.completeExceptionally(new IOException("no answer from " + batch.getKey())));
                request(this, batch.getKey(), batch.getValue().size() * (valueBytes + 24), target -> {
                    target.apply(batch.getValue());
                    return null;
                }, reply -> SMALL_MESSAGE_BYTES).thenRun(() -> applied.complete(null));
                sent.add(applied);
                stream.entries += batch.getValue().size();
                keysStreamed += batch.getValue().size();
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).whenComplete((ok, error) -> {
                if (life != lifeNow) {
                    return;
                }
                if (error != null) {
                    stream.progress = StreamProgress.failed(error.getMessage());
                    return;
                }
                checkpoints.put(movement.streamName(), checkpoint);
                at(1, () -> streamBatch(movement, stream, lifeNow));
            });
        }

        void apply(Map<String, Version> entries) {
            for (Map.Entry<String, Version> entry : entries.entrySet()) {
                store.merge(entry.getKey(), entry.getValue(), (mine, theirs) -> theirs.newerThan(mine) ? theirs : mine);
            }
        }

        /**
         * Writes {@code version} to the key's replicas and pending replicas under this node's map, needing
         * {@code ack + P}; a replica on a map that moved the key since refuses with its map, which this node
         * takes before it tries again.
         */
        void write(String key, Version version, int attempts) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            ClusterMap on = map;
            int rf = on.replicationFactor();
            int ack = rf / 2 + 1;
            Set<String> targets = new java.util.LinkedHashSet<>();
            Partitioner current = placement(on, false);
            for (int replica : current.replicas(bytes, Math.min(rf, current.nodes().size()))) {
                targets.add(current.nodes().get(replica));
            }
            int pending = 0;
            if (on.inTransition()) {
                Partitioner future = placement(on, true);
                for (int replica : future.replicas(bytes, Math.min(rf, future.nodes().size()))) {
                    if (targets.add(future.nodes().get(replica))) {
                        pending++;
                    }
                }
            }
            int needed = ack + pending;
            int[] acks = {0};
            boolean[] over = {false};
            ClusterMap[] newer = {null};
            int lifeNow = life;
            for (String target : targets) {
                request(this, target, replica -> replica.replicate(on, key, version)).thenAccept(answer -> {
                    if (over[0]) {
                        return;
                    }
                    if (answer != null) {
                        newer[0] = answer;
                        return;
                    }
                    if (++acks[0] >= needed) {
                        over[0] = true;
                        Version before = acknowledged.get(key);
                        if (version.newerThan(before)) {
                            acknowledged.put(key, version);
                        }
                        writesAcknowledged++;
                    }
                });
            }
            afterTimeout(over, newer, lifeNow, attempts, () -> write(key, version, attempts - 1), () -> writesFailed++);
        }

        /**
         * Once the request timeout passed, unless answered: tries {@code again} on the newer map a replica
         * refused with, while attempts are left, else gives up.
         */
        private void afterTimeout(boolean[] over, ClusterMap[] newer, int lifeNow, int attempts, Runnable again,
                                  Runnable givenUp) {
            at(NETWORK_TIMEOUT_MILLIS, () -> {
                if (over[0] || life != lifeNow) {
                    return;
                }
                over[0] = true;
                if (newer[0] != null && attempts > 1) {
                    learn(newer[0]);
                    again.run();
                } else {
                    givenUp.run();
                }
            });
        }

        /**
         * Reads {@code key} at quorum from its read replicas under this node's map, the newest of the answers;
         * a replica whose newer map moved the key refuses, and this node takes its map and reads again. The
         * answer must be at least {@code floor}, the newest version acknowledged when the read began.
         */
        void read(String key, Version floor, int attempts) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            ClusterMap on = map;
            int rf = on.replicationFactor();
            int quorum = rf / 2 + 1;
            Partitioner placement = placement(on, false);
            int[] answers = {0};
            boolean[] over = {false};
            Version[] newest = {null};
            ClusterMap[] newer = {null};
            List<String> asked = new ArrayList<>();
            int lifeNow = life;
            for (int replica : placement.replicas(bytes, Math.min(rf, placement.nodes().size()))) {
                String target = placement.nodes().get(replica);
                asked.add(target);
                request(this, target, node -> node.readReplica(on, key)).thenAccept(answer -> {
                    if (over[0]) {
                        return;
                    }
                    if (answer.refusedWith() != null) {
                        newer[0] = answer.refusedWith();
                        return;
                    }
                    if (answer.version() != null && answer.version().newerThan(newest[0])) {
                        newest[0] = answer.version();
                    }
                    if (++answers[0] >= quorum) {
                        over[0] = true;
                        readsAnswered++;
                        if (floor != null && (newest[0] == null || newest[0].timestamp() < floor.timestamp())) {
                            throw violation("a quorum read of " + key + " by " + name + " on map epoch " + on.epoch()
                                    + (on.readsMoved() ? " (reads moved)" : "") + " from " + asked + " returned "
                                    + newest[0] + ", older than " + floor + " acknowledged before it began; holders: "
                                    + holdersOf(key));
                        }
                    }
                });
            }
            afterTimeout(over, newer, lifeNow, attempts, () -> read(key, floor, attempts - 1), () -> { });
        }

        ReadAnswer readReplica(ClusterMap coordinatorMap, String key) {
            learn(coordinatorMap);
            if (placements.movedSince(coordinatorMap.epoch(), key.getBytes(StandardCharsets.UTF_8)) >= 0) {
                return new ReadAnswer(null, map);
            }
            return new ReadAnswer(store.get(key), null);
        }

        /** A replica's side of a write: null once stored, or its map when it refuses one sent on a map it moved past. */
        ClusterMap replicate(ClusterMap coordinatorMap, String key, Version version) {
            learn(coordinatorMap);
            if (placements.movedSince(coordinatorMap.epoch(), key.getBytes(StandardCharsets.UTF_8)) >= 0) {
                return map;
            }
            apply(Map.of(key, version));
            return null;
        }
    }

    /**
     * A map's read placement, or with {@code future} its pending one, built once per map: some (maglev's
     * table) cost more to build than a thousand lookups.
     */
    private final Map<String, Partitioner> placements = new HashMap<>();

    private Partitioner placement(ClusterMap map, boolean future) {
        return placements.computeIfAbsent(map.fingerprintText() + "@" + map.epoch() + (future ? "+" : ""),
                key -> future ? map.pendingPlacement() : map.readPlacement());
    }

    private static byte[] bytes(ClusterMap map) {
        return ClusterMapCodec.toJson(map).getBytes(StandardCharsets.UTF_8);
    }

    private static ClusterMap parse(byte[] value) {
        return ClusterMapCodec.fromJson(new String(value, StandardCharsets.UTF_8));
    }
}
