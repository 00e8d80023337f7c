package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import io.kvstore.core.testing.Seeds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replicas that converge, shown on simulated clusters: random histories of PUT, GET and DELETE through
 * every node's coordinator while replicas fail (refusing, or silent until their requests time out),
 * writes reach only some replicas, answers arrive in random order, and hints are replayed to replicas
 * that are up.
 *
 * <p>Invariants: quorum reads are monotonic (with blocking read repair, a version one quorum read
 * returned is never followed by an older one); after healing (every replica up, every message and hint
 * delivered) every one of a key's RF replicas holds the same version, at least as new as its last
 * acknowledged write. Seeds are printed; replay one with {@code -Dkv.seed=N}.
 */
class ConvergenceSimulationTest {
    private static final int OPERATIONS = 3_000;
    private static final String[] KEYS = {"alpha", "beta", "gamma", "delta", "epsilon"};
    private static final Duration TIMEOUT = Duration.ofMillis(200);
    /** A hint waits for this many operations on average after its replica is up: reads meet stale replicas meanwhile. */
    private static final int REPLAY_ODDS = 40;

    static Stream<Arguments> scenarios() {
        return Stream.of(
                Arguments.of("3 nodes, 2/3, one down at a time", 3, 2, 1),
                Arguments.of("3 nodes, 2/3, up to two down (partial writes)", 3, 2, 2),
                Arguments.of("5 nodes, 3/5, up to two down", 5, 3, 2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void acknowledgedWritesReachEveryReplicaAndQuorumReadsAreMonotonic(String name, int nodes, int ack, int maxDown)
            throws Exception {
        long seed = Seeds.seed("convergence simulation, " + name);
        new Simulation(new SplittableRandom(seed), nodes, Quorum.of(ack, nodes, nodes), maxDown).run();
    }

    private enum Health { UP, FAILING, SILENT }

    /** A replica whose answers travel through the shared network; a silent one holds them until detected. */
    private static final class SimReplica implements Replica {
        final String name;
        final Network network;
        final Map<String, Entry> data = new HashMap<>();
        final List<CompletableFuture<?>> unanswered = new ArrayList<>();
        Health health = Health.UP;

        SimReplica(String name, Network network) {
            this.name = name;
            this.network = network;
        }

        @Override
        public CompletionStage<Entry> get(byte[] key) {
            CompletableFuture<Entry> answer = new CompletableFuture<>();
            send(answer, () -> data.get(string(key)));
            return answer;
        }

        @Override
        public CompletionStage<Void> upsert(Entry entry) {
            network.lastSent = entry;
            CompletableFuture<Void> answer = new CompletableFuture<>();
            send(answer, () -> {
                data.merge(string(entry.key()), entry, Entry::newerOf);
                return null;
            });
            return answer;
        }

        private <T> void send(CompletableFuture<T> answer, Supplier<T> onArrival) {
            switch (health) {
                case UP:
                    network.inFlight.add(() -> answer.complete(onArrival.get()));
                    break;
                case FAILING:
                    network.inFlight.add(() -> answer.completeExceptionally(new IOException("connection refused by " + name)));
                    break;
                case SILENT:
                    unanswered.add(answer); // fails as a timeout once the silence is noticed
                    break;
                default:
                    throw new AssertionError(health);
            }
        }

        /** The requests it never answered time out, as a real client's would. */
        void timeOutUnanswered() {
            List<CompletableFuture<?>> pending = new ArrayList<>(unanswered);
            unanswered.clear();
            for (CompletableFuture<?> answer : pending) {
                network.inFlight.add(() -> answer.completeExceptionally(new IOException("timed out waiting for " + name)));
            }
        }
    }

    /** Messages in flight, delivered in random order, possibly after later requests were sent. */
    private static final class Network {
        final List<Runnable> inFlight = new ArrayList<>();
        Entry lastSent;

        void deliverOne(SplittableRandom random) {
            inFlight.remove(random.nextInt(inFlight.size())).run();
        }
    }

    /** Hints kept in memory, replayed through the network to replicas that are up. */
    private static final class SimHints implements HintSink {
        final List<int[]> targets = new ArrayList<>();
        final List<Entry> entries = new ArrayList<>();
        int kept;
        int replayed;

        @Override
        public void hint(int node, Entry entry) {
            targets.add(new int[] {node});
            entries.add(entry);
            kept++;
        }

        /** Replays the hints of up replicas; a failed replay is hinted again. */
        void replay(List<SimReplica> replicas, SplittableRandom random, boolean all) {
            for (int i = targets.size() - 1; i >= 0; i--) {
                int node = targets.get(i)[0];
                if (replicas.get(node).health != Health.UP || (!all && random.nextInt(REPLAY_ODDS) != 0)) {
                    continue;
                }
                Entry entry = entries.remove(i);
                targets.remove(i);
                replayed++;
                replicas.get(node).upsert(entry).whenComplete((ok, error) -> {
                    if (error != null) {
                        hint(node, entry);
                    }
                });
            }
        }
    }

    private static final class KeyHistory {
        final List<Entry> written = new ArrayList<>();
        Entry lastAcknowledged;
        Entry lastRead;
    }

    private static final class Simulation {
        final SplittableRandom random;
        final Quorum quorum;
        final int maxDown;
        final Network network = new Network();
        final List<SimReplica> replicas = new ArrayList<>();
        final List<ReplicaCoordinator> coordinators = new ArrayList<>();
        final SimHints hints = new SimHints();
        final Partitioner partitioner;
        final AtomicLong wall = new AtomicLong(1_795_000_000_000L);
        final Map<String, KeyHistory> histories = new HashMap<>();
        int succeeded;
        int failed;
        int monotonicChecks;

        Simulation(SplittableRandom random, int nodeCount, Quorum quorum, int maxDown) {
            this.random = random;
            this.quorum = quorum;
            this.maxDown = maxDown;
            List<String> nodes = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                nodes.add("http://node" + i);
                replicas.add(new SimReplica("http://node" + i, network));
            }
            partitioner = Partitioners.create("ring", nodes);
            ReplicationOptions options = ReplicationOptions.builder().readRepair(ReadRepair.BLOCKING).build();
            for (int i = 0; i < nodeCount; i++) {
                coordinators.add(ReplicaCoordinator.builder(partitioner, new ArrayList<>(replicas), new HybridClock(wall::get))
                        .timeout(TIMEOUT).options(options).hintedHandoff(hints).build());
            }
            for (String key : KEYS) {
                histories.put(key, new KeyHistory());
            }
        }

        void run() throws Exception {
            for (int op = 0; op < OPERATIONS; op++) {
                maybeChangeHealth();
                wall.addAndGet(random.nextInt(3));
                String key = KEYS[random.nextInt(KEYS.length)];
                ReplicaCoordinator coordinator = coordinators.get(random.nextInt(coordinators.size()));
                int kind = random.nextInt(5);
                String context = "op " + op + " on '" + key + "', health " + health();
                if (kind < 2) {
                    get(coordinator, key, context);
                } else {
                    update(coordinator, key, kind == 4, op, context);
                }
                for (int i = random.nextInt(3); i > 0 && !network.inFlight.isEmpty(); i--) {
                    network.deliverOne(random);
                }
                hints.replay(replicas, random, false);
            }
            heal();
            System.out.printf("convergence simulation: %d succeeded, %d failed, %d hints kept, %d replayed,"
                    + " %d reads checked for monotonicity%n", succeeded, failed, hints.kept, hints.replayed, monotonicChecks);
            assertTrue(hints.kept > 0, "no replica ever missed a write: the history shows nothing");
            assertTrue(monotonicChecks > OPERATIONS / 20, "too few reads followed another read");
        }

        private void get(ReplicaCoordinator coordinator, String key, String context) throws Exception {
            CompletableFuture<Entry> result = coordinator.get(bytes(key), quorum).toCompletableFuture();
            if (!settle(result)) {
                return;
            }
            Entry seen = result.get();
            KeyHistory history = histories.get(key);
            if (seen != null) {
                assertTrue(history.written.contains(seen), () -> context + ": read a version nobody wrote: " + seen);
            }
            if (history.lastRead != null) {
                monotonicChecks++;
                assertNotNull(seen, () -> context + ": a quorum read returned nothing after one returned " + history.lastRead);
                assertTrue(Entry.compareVersions(seen, history.lastRead) >= 0,
                        () -> context + ": read " + seen + " after a quorum read returned the newer " + history.lastRead);
            }
            if (history.lastAcknowledged != null) {
                assertNotNull(seen, () -> context + ": lost the acknowledged " + history.lastAcknowledged);
                assertTrue(seen.timestamp() >= history.lastAcknowledged.timestamp(),
                        () -> context + ": read " + seen + " older than the acknowledged " + history.lastAcknowledged);
            }
            history.lastRead = seen;
        }

        private void update(ReplicaCoordinator coordinator, String key, boolean delete, int op, String context)
                throws Exception {
            network.lastSent = null;
            CompletableFuture<Void> result = (delete
                    ? coordinator.delete(bytes(key), quorum)
                    : coordinator.put(bytes(key), bytes("value of op " + op), quorum)).toCompletableFuture();
            Entry sent = network.lastSent;
            KeyHistory history = histories.get(key);
            if (sent != null) {
                history.written.add(sent);
            }
            if (settle(result)) {
                assertNotNull(sent, context);
                history.lastAcknowledged = sent;
            }
        }

        /** Delivers messages until the request is decided, noticing silent replicas when nothing else moves. */
        private boolean settle(CompletableFuture<?> result) throws Exception {
            while (!result.isDone()) {
                if (network.inFlight.isEmpty()) {
                    // Nothing left to deliver: the request waits for a silent replica; its requests time out.
                    boolean any = false;
                    for (SimReplica replica : replicas) {
                        if (replica.health == Health.SILENT) {
                            replica.health = Health.FAILING;
                            replica.timeOutUnanswered();
                            any = true;
                        }
                    }
                    if (!any) {
                        break;
                    }
                } else {
                    network.deliverOne(random);
                }
            }
            try {
                result.get(10, TimeUnit.SECONDS);
                succeeded++;
                return true;
            } catch (ExecutionException e) {
                assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
                failed++;
                return false;
            }
        }

        private void maybeChangeHealth() {
            if (random.nextInt(20) != 0) {
                return;
            }
            SimReplica replica = replicas.get(random.nextInt(replicas.size()));
            if (replica.health != Health.UP) {
                replica.timeOutUnanswered();
                replica.health = Health.UP; // back, with whatever it missed still missing
                return;
            }
            long down = replicas.stream().filter(r -> r.health != Health.UP).count();
            if (down < maxDown) {
                replica.health = random.nextInt(8) == 0 ? Health.SILENT : Health.FAILING;
            }
        }

        /** Every replica up; every message and hint delivered; then every replica of a key holds one version. */
        private void heal() {
            for (SimReplica replica : replicas) {
                replica.timeOutUnanswered();
                replica.health = Health.UP;
            }
            while (!network.inFlight.isEmpty() || !hints.entries.isEmpty()) {
                while (!network.inFlight.isEmpty()) {
                    network.deliverOne(random);
                }
                hints.replay(replicas, random, true);
            }
            for (String key : KEYS) {
                KeyHistory history = histories.get(key);
                int[] owners = partitioner.replicas(bytes(key), quorum.from());
                Entry first = replicas.get(owners[0]).data.get(key);
                for (int owner : owners) {
                    Entry held = replicas.get(owner).data.get(key);
                    assertEquals(first, held, "after healing, replicas of '" + key + "' disagree: "
                            + replicas.get(owners[0]).name + " holds " + first + ", " + replicas.get(owner).name
                            + " holds " + held);
                }
                if (history.lastAcknowledged != null) {
                    assertNotNull(first, "acknowledged " + history.lastAcknowledged + " is nowhere");
                    assertTrue(first.timestamp() >= history.lastAcknowledged.timestamp(),
                            "replicas of '" + key + "' hold " + first + ", older than the acknowledged "
                                    + history.lastAcknowledged);
                }
            }
        }

        private String health() {
            StringBuilder sb = new StringBuilder();
            for (SimReplica replica : replicas) {
                sb.append(replica.health.name().charAt(0));
            }
            return sb.toString();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
