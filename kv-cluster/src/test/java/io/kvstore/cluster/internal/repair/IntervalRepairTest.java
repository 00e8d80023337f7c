package io.kvstore.cluster.internal.repair;

import static io.kvstore.cluster.internal.repair.RepairStores.NODES;
import static io.kvstore.cluster.internal.repair.RepairStores.key;
import static io.kvstore.cluster.internal.repair.RepairStores.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Bytes;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exchanges restricted to a key interval, between real LSM stores watched by {@link WatchedDao}: both
 * sides scan, list and read the interval's keys only, whatever the store holds around it, and the
 * interval converges as a whole-store exchange would converge it. Healing a refused interval refetches
 * it this way from every peer.
 */
class IntervalRepairTest {
    /** Every node holds every key: the counts below are the interval's keys, not a share of them. */
    private static final int RF = 3;
    private static final int DEPTH = 12;
    private static final int KEYS = 20_000;
    private static final KeyInterval INTERVAL = new KeyInterval(key(10_000), key(10_200));

    @TempDir
    Path dir;
    private RepairStores stores;

    @BeforeEach
    void open() {
        stores = new RepairStores(dir);
    }

    @AfterEach
    void close() throws IOException {
        stores.close();
    }

    @Test
    void anIntervalsExchangeScansListsAndReadsOnlyItsKeysOnBothSidesAndConvergesThem() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < KEYS; i++) {
            if (i != 10_001) {
                dao(a).upsert(Entry.value(key(i), value(i), 100));
            }
            if (i != 10_002) {
                dao(b).upsert(Entry.value(key(i), value(i), 100));
            }
        }
        byte[] apple = text("apple");
        byte[] pear = text("pear");
        dao(b).upsert(Entry.value(key(10_003), text("newer"), 300));
        dao(b).upsert(Entry.tombstone(key(10_004), 300));
        dao(a).upsert(Entry.value(key(10_005), apple, 300));
        dao(b).upsert(Entry.value(key(10_005), pear, 300));
        dao(b).upsert(Entry.value(key(5), text("outside"), 300));
        dao(b).upsert(Entry.value(key(15_000), text("outside"), 300));
        stores.forget();

        RepairSummary summary = repair(a, b, INTERVAL);

        assertEquals(INTERVAL, summary.interval());
        assertEquals(199 + 199, summary.treeKeys(), "each side's tree holds its keys of the interval");
        assertEquals(2, summary.keysSent(), "the key b lacks, and a's value of the timestamp both wrote");
        assertEquals(4, summary.keysReceived(), "the key a lacks, a newer value, a tombstone, b's value of that timestamp");
        for (RepairResponder side : List.of(a, b)) {
            assertWithin(INTERVAL, dao(side).scanned, "scanned by " + side.node());
            assertWithin(INTERVAL, dao(side).read, "read by " + side.node());
            assertTrue(dao(side).scanned.size() <= 3 * 200, dao(side).scanned.size() + " entries scanned by " + side.node()
                    + ": a tree and the listings of one interval of 200 keys, not the store of " + KEYS);
        }
        assertEquals(contents(dao(b), INTERVAL), contents(dao(a), INTERVAL));
        assertEquals(Entry.value(key(10_005), pear, 300), dao(a).get(key(10_005)));
        assertEquals(Entry.tombstone(key(10_004), 300), dao(a).get(key(10_004)));
        assertEquals(Entry.value(key(10_002), value(10_002), 100), dao(b).get(key(10_002)));
        assertEquals(Entry.value(key(5), value(5), 100), dao(a).get(key(5)), "nothing outside the interval is taken");

        RepairSummary again = repair(b, a, INTERVAL);
        assertEquals(0, again.keysSent() + again.keysReceived(), "converged: the interval's trees agree");
        assertEquals(0, again.segmentsDiffering());
        RepairSummary whole = repair(a, b, KeyInterval.ALL);
        assertEquals(2, whole.keysReceived(), "a whole exchange finds only the divergence outside the interval");
    }

    static Stream<Arguments> intervals() {
        return Stream.of(
                Arguments.of("the start of the key space", new KeyInterval(null, key(100)), 100),
                Arguments.of("the end of the key space", new KeyInterval(key(KEYS - 100), null), 100),
                Arguments.of("one key", new KeyInterval(key(7), RepairResponder.successor(key(7))), 1),
                Arguments.of("no key of the store", new KeyInterval(text("zzz"), null), 0),
                Arguments.of("an empty interval", new KeyInterval(key(50), key(50)), 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("intervals")
    void anEmptySideTakesExactlyTheIntervalsKeys(String name, KeyInterval interval, int keys) throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < KEYS; i++) {
            dao(b).upsert(i % 10 == 3 ? Entry.tombstone(key(i), 100) : Entry.value(key(i), value(i), 100));
        }
        stores.forget();

        RepairSummary summary = repair(a, b, interval);

        assertEquals(keys, summary.treeKeys());
        assertEquals(keys, summary.keysReceived());
        assertEquals(0, summary.keysSent());
        assertEquals(contents(dao(b), interval), contents(dao(a), KeyInterval.ALL), "a holds the interval's keys and no other");
        for (RepairResponder side : List.of(a, b)) {
            assertWithin(interval, dao(side).scanned, "scanned by " + side.node());
            assertTrue(dao(side).scanned.size() <= 3 * keys, dao(side).scanned.size() + " entries scanned by " + side.node());
        }
        if (keys == 0) {
            assertEquals(0, summary.segmentsDiffering());
            assertEquals(1, summary.hashesCompared(), "empty trees agree at the root");
        }
    }

    @Test
    void aPeerThatIgnoresTheIntervalStillConvergesOnlyTheInterval() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < 1000; i++) {
            dao(b).upsert(Entry.value(key(i), value(i), 100));
        }
        RepairPeer older = new FailingPeer(b) {
            @Override
            public CompletionStage<BuiltTree> openTree(String partner, int replicationFactor, int depth, KeyInterval interval) {
                return super.openTree(partner, replicationFactor, depth, KeyInterval.ALL);
            }
        };
        KeyInterval interval = new KeyInterval(key(100), key(200));

        RepairSummary summary = repair(a, older, interval);

        assertEquals(100, summary.keysReceived());
        assertEquals(contents(dao(b), interval), contents(dao(a), KeyInterval.ALL));
    }

    @Test
    void anIntervalStartingAfterItsEndIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new KeyInterval(key(2), key(1)));
        assertTrue(e.getMessage().contains("after its end"), e.getMessage());
    }

    @Test
    void healingRefetchesEachRefusedIntervalFromEveryPeerAloneAndServesItAgain() throws IOException {
        List<RepairResponder> nodes = List.of(node(0), node(1), node(2));
        RepairResponder a = nodes.get(0);
        for (int i = 0; i < KEYS; i++) {
            for (RepairResponder node : nodes) {
                dao(node).upsert(Entry.value(key(i), value(i), node == a && INTERVAL.contains(key(i)) ? 50 : 100));
            }
        }
        dao(nodes.get(1)).upsert(Entry.tombstone(key(10_100), 200));
        dao(nodes.get(2)).upsert(Entry.value(key(5), text("outside"), 300));
        dao(a).quarantine(INTERVAL.from(), INTERVAL.to());
        stores.forget();

        RepairReport report;
        try (AntiEntropy antiEntropy = antiEntropy(a, nodes)) {
            assertTrue(antiEntropy.canRefetch());
            report = antiEntropy.heal(null, null).toCompletableFuture().join();
        }

        assertTrue(report.succeeded(), report.failures().toString());
        assertEquals(1, report.refused());
        assertEquals(1, report.healed());
        assertEquals(2, report.heals().size(), "one exchange of the interval with each peer");
        assertEquals(report.heals(), report.summaries(), "and no exchange of the whole store");
        assertEquals(200, report.heals().get(0).treeKeys(), "the peer's keys of the interval; a lists none of a refused interval's");
        assertEquals(List.of(), dao(a).health().quarantined());
        for (RepairResponder node : nodes) {
            assertWithin(INTERVAL, dao(node).scanned, "scanned by " + node.node());
            assertTrue(dao(node).scanned.size() <= 2 * 3 * 200, dao(node).scanned.size() + " entries scanned by " + node.node());
        }
        assertEquals(Entry.tombstone(key(10_100), 200), dao(a).get(key(10_100)));
        assertEquals(Entry.value(key(10_000), value(10_000), 100), dao(a).get(key(10_000)));
        assertEquals(Entry.value(key(5), value(5), 100), dao(a).get(key(5)), "healing takes nothing outside the interval");
    }

    @Test
    void aFullRunRefetchesTheRefusedIntervalFirstThenExchangesTheWholeStore() throws IOException {
        List<RepairResponder> nodes = List.of(node(0), node(1), node(2));
        RepairResponder a = nodes.get(0);
        for (int i = 0; i < 2000; i++) {
            for (RepairResponder node : nodes) {
                dao(node).upsert(Entry.value(key(i), value(i), 100));
            }
        }
        dao(nodes.get(2)).upsert(Entry.value(key(5), text("outside"), 300));
        dao(a).quarantine(key(1000), key(1100));

        RepairReport report;
        try (AntiEntropy antiEntropy = antiEntropy(a, nodes)) {
            report = antiEntropy.repairAll().toCompletableFuture().join();
        }

        assertTrue(report.succeeded(), report.failures().toString());
        assertEquals(1, report.healed());
        assertEquals(2, report.heals().size());
        assertEquals(4, report.summaries().size(), "the interval with each peer, then the whole store with each");
        assertEquals(List.of(), dao(a).health().quarantined());
        assertEquals(Entry.value(key(5), text("outside"), 300), dao(a).get(key(5)));
    }

    @Test
    void anIntervalAPeerFailedToRefetchStaysRefused() throws IOException {
        List<RepairResponder> nodes = List.of(node(0), node(1), node(2));
        RepairResponder a = nodes.get(0);
        for (int i = 0; i < 300; i++) {
            dao(nodes.get(1)).upsert(Entry.value(key(i), value(i), 100));
        }
        dao(a).quarantine(key(100), key(200));
        Map<String, RepairPeer> peers = Map.of(NODES.get(1), nodes.get(1), NODES.get(2), new FailingPeer(nodes.get(2)) {
            @Override
            public CompletionStage<BuiltTree> openTree(String partner, int replicationFactor, int depth, KeyInterval interval) {
                return CompletableFuture.failedFuture(new IOException("connection refused: " + node()));
            }
        });

        RepairReport report;
        try (AntiEntropy antiEntropy = new AntiEntropy(a, NODES.subList(1, 3), peers::get, RF, DEPTH, stores.executor)) {
            report = antiEntropy.heal(null, null).toCompletableFuture().join();
        }

        assertFalse(report.succeeded());
        assertEquals("connection refused: " + NODES.get(2),
                report.failures().get(NODES.get(2) + " " + new KeyInterval(key(100), key(200)).describe()));
        assertEquals(0, report.healed());
        assertEquals(1, dao(a).health().quarantined().size(), "one peer's copy is not every peer's");
    }

    @Test
    void withoutAnotherReplicaNothingIsRefetchedOrHealed() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        dao(a).quarantine(key(100), key(200));
        try (AntiEntropy alone = new AntiEntropy(a, List.of(), node -> b, RF, DEPTH, stores.executor);
             AntiEntropy single = new AntiEntropy(a, List.of(NODES.get(1)), node -> b, 1, DEPTH, stores.executor)) {
            for (AntiEntropy antiEntropy : List.of(alone, single)) {
                assertFalse(antiEntropy.canRefetch());
                RepairReport report = antiEntropy.heal(null, null).toCompletableFuture().join();
                assertEquals(0, report.healed());
                assertEquals(List.of(), report.summaries());
            }
        }
        assertEquals(1, dao(a).health().quarantined().size());
    }

    // ---- fixture ----

    private RepairResponder node(int index) {
        return stores.node(index);
    }

    private WatchedDao dao(RepairResponder responder) {
        return stores.dao(responder);
    }

    private AntiEntropy antiEntropy(RepairResponder local, List<RepairResponder> nodes) {
        return new AntiEntropy(local, NODES.subList(1, nodes.size()), node -> nodes.get(NODES.indexOf(node)), RF, DEPTH,
                stores.executor);
    }

    private RepairSummary repair(RepairPeer local, RepairPeer peer, KeyInterval interval) {
        return RepairExchange.run(local, peer, RF, DEPTH, interval, stores.executor).toCompletableFuture().join();
    }

    private static NavigableMap<byte[], Entry> contents(Dao dao, KeyInterval interval) throws IOException {
        return RepairStores.contents(dao, interval.from(), interval.to());
    }

    private static void assertWithin(KeyInterval interval, Collection<byte[]> keys, String what) {
        for (byte[] key : keys) {
            assertTrue(interval.contains(key), what + ": " + Bytes.toDebugString(key) + " outside " + interval);
        }
    }

    private static byte[] text(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
