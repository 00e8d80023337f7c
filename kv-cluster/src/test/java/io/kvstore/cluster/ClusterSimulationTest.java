package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The DESIGN.md guarantees on a simulated cluster: random histories of writes and deletes with random
 * replicas down; every successful write made with a quorum is seen by a later quorum read while fewer
 * than a quorum of replicas are down; operations succeed exactly when enough replicas are up.
 * Seed printed; replay with -Dkv.seed=N.
 */
class ClusterSimulationTest {

    @Test
    void quorumReadsSeeQuorumWritesWithOneReplicaDown() {
        runHistory(3, Quorum.of(2, 3, 3), Quorum.of(2, 3, 3), 1);
    }

    @Test
    void allWritesAreSeenByOneReadOnTwoNodes() {
        runHistory(2, Quorum.of(2, 2, 2), Quorum.of(1, 2, 2), 1);
    }

    @Test
    void majorityOfFiveToleratesTwoDown() {
        runHistory(5, Quorum.of(3, 5, 5), Quorum.of(3, 5, 5), 2);
    }

    private static void runHistory(int nodes, Quorum write, Quorum read, int maxDown) {
        long seed = Long.getLong("kv.seed", System.nanoTime());
        System.out.println("ClusterSimulationTest seed=" + seed + " (replay with -Dkv.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        List<String> names = new ArrayList<>();
        List<MemoryReplica> replicas = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            names.add("node-" + i);
            replicas.add(new MemoryReplica());
        }
        Partitioner partitioner = Partitioners.create("rendezvous", names);
        // Per key, the values a read may legally return (null = absent or deleted): one value after an
        // acknowledged write; after a failed write, the old ones plus the new one, since it may have
        // reached some replicas.
        Map<String, List<byte[]>> allowed = new HashMap<>();
        try (ReplicaCoordinator coordinator = new ReplicaCoordinator(partitioner, new ArrayList<>(replicas),
                new HybridClock(), Duration.ofSeconds(5))) {
            for (int step = 0; step < 20_000; step++) {
                for (MemoryReplica r : replicas) {
                    r.down = false;
                }
                int wanted = random.nextInt(maxDown + 1);
                int down = 0;
                while (down < wanted) {
                    MemoryReplica r = replicas.get(random.nextInt(nodes));
                    if (!r.down) {
                        r.down = true;
                        down++;
                    }
                }
                String key = "key-" + random.nextInt(50);
                byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
                List<byte[]> values = allowed.computeIfAbsent(key, k -> new ArrayList<>(Collections.singletonList(null)));
                String where = "step " + step + ", " + down + " down, seed " + seed + ": ";
                int op = random.nextInt(10);
                if (op < 5) {
                    byte[] value = op == 4 ? null : randomValue(random);
                    CompletableFuture<Void> done = value == null
                            ? coordinator.delete(keyBytes, write).toCompletableFuture()
                            : coordinator.put(keyBytes, value, write).toCompletableFuture();
                    boolean ok = succeeded(done);
                    assertEquals(down <= write.from() - write.ack(), ok, where + "write success must follow the quorum");
                    if (ok) {
                        values.clear();
                    }
                    values.add(value);
                } else {
                    CompletableFuture<Entry> done = coordinator.get(keyBytes, read).toCompletableFuture();
                    boolean ok = succeeded(done);
                    assertEquals(down <= read.from() - read.ack(), ok, where + "read success must follow the quorum");
                    if (ok) {
                        Entry seen = done.join();
                        byte[] got = seen == null || seen.isTombstone() ? null : seen.value();
                        boolean legal = false;
                        for (byte[] v : values) {
                            legal |= Arrays.equals(v, got);
                        }
                        assertTrue(legal, where + key + " read a value no write left there");
                        if (values.size() == 1) {
                            assertArrayEquals(values.get(0), got, where + key + " must read the acknowledged write");
                        }
                    }
                }
            }
        }
    }

    private static byte[] randomValue(SplittableRandom random) {
        byte[] value = new byte[random.nextInt(4)];
        random.nextBytes(value);
        return value;
    }

    private static boolean succeeded(CompletableFuture<?> future) {
        try {
            future.join();
            return true;
        } catch (CompletionException e) {
            if (e.getCause() instanceof NotEnoughReplicasException) {
                return false;
            }
            throw e;
        }
    }
}
