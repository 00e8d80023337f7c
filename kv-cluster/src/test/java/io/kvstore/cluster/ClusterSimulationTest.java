package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.kvstore.core.Entry;
import io.kvstore.core.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The replication guarantees of DESIGN.md, shown on simulated clusters: random histories of PUT, GET
 * and DELETE through every node's coordinator, while replicas go down (failing fast or never
 * answering), come back with stale data, and answer in random order, some only after later requests.
 *
 * <p>Invariants: whenever {@code readAck + writeAck > from}, a successful GET returns a version at
 * least as new as the last acknowledged write of the key, and only ever a version that some request
 * wrote; a request succeeds exactly when at least {@code ack} of its replicas are up.
 * Seeds are printed; replay one with {@code -Dkv.seed=N}.
 */
@Tag("slow")
class ClusterSimulationTest {
    private static final int OPERATIONS = 3_000;
    private static final String[] KEYS = {"alpha", "beta", "gamma", "delta"};
    /** Long enough that a request with enough live replicas never times out on a loaded machine. */
    private static final Duration TIMEOUT = Duration.ofMillis(200);

    static Stream<Arguments> scenarios() {
        return Stream.of(
                Arguments.of("PUT 2/3 then GET 2/3, one replica down", 3, 3, 2, 2, 1),
                Arguments.of("PUT 2/2 then GET 1/2, one replica down", 2, 2, 2, 1, 1),
                Arguments.of("PUT 3/3 then GET 1/3, one replica down", 3, 3, 3, 1, 1),
                Arguments.of("PUT 1/3 then GET 3/3, all up or one down", 3, 3, 1, 3, 1),
                Arguments.of("PUT 3/5 then GET 3/5, two replicas down", 5, 5, 3, 3, 2),
                Arguments.of("PUT 2/3 then GET 2/3 of 5 nodes, one down", 5, 3, 2, 2, 1),
                Arguments.of("PUT 2/3 then GET 2/3, up to two down (requests fail, never lie)", 3, 3, 2, 2, 2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void readsSeeTheLastAcknowledgedWrite(String name, int nodeCount, int from, int writeAck, int readAck,
                                          int maxDown) throws Exception {
        long seed = Seeds.seed("cluster simulation, " + name);
        new Simulation(new SplittableRandom(seed), nodeCount, Quorum.of(writeAck, from, nodeCount),
                Quorum.of(readAck, from, nodeCount), maxDown).run();
    }

    private enum Health { UP, FAILING, SILENT }

    /** A replica of the simulated cluster: its answers travel through the shared {@link Network}. */
    private static final class SimReplica implements Replica {
        final String name;
        final Network network;
        final Map<String, Entry> data = new HashMap<>();
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
                data.merge(string(entry.key()), entry, (old, now) -> now.timestamp() >= old.timestamp() ? now : old);
                return null;
            });
            return answer;
        }

        private <T> void send(CompletableFuture<T> answer, java.util.function.Supplier<T> onArrival) {
            switch (health) {
                case UP:
                    network.inFlight.add(() -> answer.complete(onArrival.get()));
                    break;
                case FAILING:
                    network.inFlight.add(() -> answer.completeExceptionally(
                            new java.io.IOException("connection refused by " + name)));
                    break;
                case SILENT:
                    break; // the request is lost: the coordinator has to time out
                default:
                    throw new AssertionError(health);
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

    /** What the test knows about one key: every write sent, and the last one acknowledged. */
    private static final class KeyHistory {
        final List<Entry> written = new ArrayList<>();
        Entry lastAcknowledged;
    }

    private static final class Simulation {
        final SplittableRandom random;
        final Quorum write;
        final Quorum read;
        final int maxDown;
        final Network network = new Network();
        final List<SimReplica> replicas = new ArrayList<>();
        final List<ReplicaCoordinator> coordinators = new ArrayList<>();
        final Partitioner partitioner;
        final AtomicLong wall = new AtomicLong(1_795_000_000_000L);
        final Map<String, KeyHistory> histories = new HashMap<>();
        int succeeded;
        int failed;
        int timedOut;
        int checkedReads;

        Simulation(SplittableRandom random, int nodeCount, Quorum write, Quorum read, int maxDown) {
            this.random = random;
            this.write = write;
            this.read = read;
            this.maxDown = maxDown;
            List<String> nodes = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                nodes.add("http://node" + i);
                replicas.add(new SimReplica("http://node" + i, network));
            }
            partitioner = Partitioners.create("ring", nodes);
            for (int i = 0; i < nodeCount; i++) {
                // Every node coordinates with its own clock over one shared wall clock.
                coordinators.add(new ReplicaCoordinator(partitioner, new ArrayList<>(replicas),
                        new HybridClock(wall::get), TIMEOUT));
            }
            for (String key : KEYS) {
                histories.put(key, new KeyHistory());
            }
        }

        void run() throws Exception {
            for (int op = 0; op < OPERATIONS; op++) {
                maybeChangeHealth();
                wall.addAndGet(1 + random.nextInt(3));
                String key = KEYS[random.nextInt(KEYS.length)];
                ReplicaCoordinator coordinator = coordinators.get(random.nextInt(coordinators.size()));
                int kind = random.nextInt(5);
                String context = "op " + op + " on '" + key + "', health " + health();
                if (kind < 2) {
                    get(coordinator, key, context);
                } else {
                    update(coordinator, key, kind == 4, op, context);
                }
                // Let some late answers through between requests too.
                for (int i = random.nextInt(3); i > 0 && !network.inFlight.isEmpty(); i--) {
                    network.deliverOne(random);
                }
            }
            System.out.printf("simulation: %d succeeded, %d failed (%d by timeout), %d reads checked against an"
                    + " acknowledged write%n", succeeded, failed, timedOut, checkedReads);
            assertTrue(checkedReads > OPERATIONS / 30, "too few reads followed an acknowledged write to show anything");
        }

        private void get(ReplicaCoordinator coordinator, String key, String context) throws Exception {
            int[] targets = partitioner.replicas(bytes(key), read.from());
            CompletableFuture<Entry> result = coordinator.get(bytes(key), read).toCompletableFuture();
            if (!settle(result, targets, read, context)) {
                return;
            }
            Entry seen = result.get();
            KeyHistory history = histories.get(key);
            if (seen != null) {
                assertTrue(history.written.contains(seen), () -> context + ": read a version nobody wrote: " + seen);
            }
            if (read.ack() + write.ack() > write.from() && history.lastAcknowledged != null) {
                checkedReads++;
                assertNotNull(seen, () -> context + ": lost the acknowledged " + history.lastAcknowledged);
                assertTrue(seen.timestamp() >= history.lastAcknowledged.timestamp(),
                        () -> context + ": read " + seen + " older than the acknowledged " + history.lastAcknowledged);
            }
        }

        private void update(ReplicaCoordinator coordinator, String key, boolean delete, int op, String context)
                throws Exception {
            int[] targets = partitioner.replicas(bytes(key), write.from());
            network.lastSent = null;
            CompletableFuture<Void> result = (delete
                    ? coordinator.delete(bytes(key), write)
                    : coordinator.put(bytes(key), bytes("value of op " + op), write)).toCompletableFuture();
            Entry sent = network.lastSent;
            KeyHistory history = histories.get(key);
            if (sent != null) {
                history.written.add(sent);
            }
            if (settle(result, targets, write, context)) {
                assertNotNull(sent);
                assertEquals(delete, sent.isTombstone());
                history.lastAcknowledged = sent;
            }
        }

        /**
         * Delivers messages in random order until the request is decided; checks it succeeded exactly
         * when enough of its replicas were up. Returns whether it succeeded.
         */
        private boolean settle(CompletableFuture<?> result, int[] targets, Quorum quorum, String context)
                throws Exception {
            while (!result.isDone() && !network.inFlight.isEmpty()) {
                network.deliverOne(random);
            }
            int up = 0;
            for (int target : targets) {
                up += replicas.get(target).health == Health.UP ? 1 : 0;
            }
            boolean expectSuccess = up >= quorum.ack();
            try {
                result.get(10, TimeUnit.SECONDS);
                if (!expectSuccess) {
                    fail(context + ": succeeded with only " + up + " live replicas for " + quorum);
                }
                succeeded++;
                return true;
            } catch (ExecutionException e) {
                NotEnoughReplicasException notEnough = assertInstanceOf(NotEnoughReplicasException.class, e.getCause());
                if (expectSuccess) {
                    fail(context + ": failed with " + up + " live replicas for " + quorum, notEnough);
                }
                failed++;
                if (notEnough.getCause() instanceof java.util.concurrent.TimeoutException) {
                    timedOut++;
                    detectSilentReplicas();
                }
                return false;
            }
        }

        private void maybeChangeHealth() {
            if (random.nextInt(20) != 0) {
                return;
            }
            SimReplica replica = replicas.get(random.nextInt(replicas.size()));
            if (replica.health != Health.UP) {
                replica.health = Health.UP; // back, with whatever it missed still missing
                return;
            }
            long down = replicas.stream().filter(r -> r.health != Health.UP).count();
            if (down < maxDown) {
                // Few silent nodes: each costs one real timeout before it is detected.
                replica.health = random.nextInt(8) == 0 ? Health.SILENT : Health.FAILING;
            }
        }

        /** A timeout is how a silent node gets noticed: from then on, connections to it are refused. */
        private void detectSilentReplicas() {
            for (SimReplica replica : replicas) {
                if (replica.health == Health.SILENT) {
                    replica.health = Health.FAILING;
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
