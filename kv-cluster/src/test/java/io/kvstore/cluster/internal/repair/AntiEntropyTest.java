package io.kvstore.cluster.internal.repair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AntiEntropyTest {
    private static final List<String> NODES = List.of("http://a:1", "http://b:2", "http://c:3");
    private static final Partitioner PARTITIONER = Partitioners.create("ring", NODES);

    @TempDir
    Path dir;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final List<Dao> daos = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (Dao dao : daos) {
            dao.close();
        }
        executor.shutdownNow();
    }

    @Test
    void aFailingPeerIsNamedAndTheOthersAreStillRepaired() throws IOException {
        RepairResponder a = responder(0);
        RepairResponder b = responder(1);
        RepairResponder c = responder(2);
        daos.get(0).upsert(Entry.value(key(), value(), 7));
        Map<String, RepairPeer> peers = Map.of(NODES.get(1), b, NODES.get(2), new FailingPeer(c) {
            @Override
            public java.util.concurrent.CompletionStage<BuiltTree> openTree(String partner, int replicationFactor, int depth,
                    KeyInterval interval) {
                return CompletableFuture.failedFuture(new IOException("connection refused: " + node()));
            }
        });
        try (AntiEntropy antiEntropy = new AntiEntropy(a, List.of(NODES.get(2), NODES.get(1)), peers::get, 3, 8, executor)) {
            RepairReport report = antiEntropy.repairAll().toCompletableFuture().join();
            assertFalse(report.succeeded());
            assertEquals("connection refused: " + NODES.get(2), report.failures().get(NODES.get(2)));
            assertEquals(1, report.summaries().size());
            assertEquals(1, report.keysSent());
        }
        assertEquals(Entry.value(key(), value(), 7), daos.get(1).get(key()));
        assertEquals(0, a.openTrees());
    }

    @Test
    void runsOnItsIntervalUntilClosed() throws Exception {
        RepairResponder a = responder(0);
        RepairResponder b = responder(1);
        daos.get(1).upsert(Entry.tombstone(key(), 9));
        CompletableFuture<Void> exchanged = new CompletableFuture<>();
        RepairPeer watched = new FailingPeer(b) {
            @Override
            public java.util.concurrent.CompletionStage<Void> closeTree(long tree) {
                exchanged.complete(null);
                return super.closeTree(tree);
            }
        };
        try (AntiEntropy antiEntropy = new AntiEntropy(a, List.of(NODES.get(1)), node -> watched, 2, 8, executor)) {
            antiEntropy.start(Duration.ofMillis(20));
            exchanged.get(10, TimeUnit.SECONDS);
        }
        assertTrue(daos.get(0).get(key()) != null);
        assertEquals(Entry.tombstone(key(), 9), daos.get(0).get(key()));
    }

    private RepairResponder responder(int index) throws IOException {
        Dao dao = Engine.LSM.open(DaoOptions.builder(dir.resolve("n" + index)).syncPolicy(SyncPolicy.NONE).build());
        daos.add(dao);
        return new RepairResponder(NODES.get(index), dao, PARTITIONER, executor, new HybridClock(), 0);
    }

    private static byte[] key() {
        return "k".getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value() {
        return "v".getBytes(StandardCharsets.UTF_8);
    }
}
