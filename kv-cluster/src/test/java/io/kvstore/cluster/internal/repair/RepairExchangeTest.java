package io.kvstore.cluster.internal.repair;

import static io.kvstore.cluster.internal.repair.RepairStores.NODES;
import static io.kvstore.cluster.internal.repair.RepairStores.PARTITIONER;
import static io.kvstore.cluster.internal.repair.RepairStores.key;
import static io.kvstore.cluster.internal.repair.RepairStores.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.TimestampOutOfBoundsException;
import io.kvstore.core.Bytes;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.testing.Seeds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exchanges between two real LSM stores, without a network: both sides are {@link RepairResponder}s. */
class RepairExchangeTest {
    private static final int DEPTH = 12;

    @TempDir
    Path dir;
    private RepairStores stores;
    private ExecutorService executor;

    @BeforeEach
    void open() {
        stores = new RepairStores(dir);
        executor = stores.executor;
    }

    @AfterEach
    void close() throws IOException {
        stores.close();
    }

    @Test
    void identicalStoresExchangeNothing() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < 5000; i++) {
            Entry entry = i % 7 == 0 ? Entry.tombstone(key(i), 100 + i) : Entry.value(key(i), value(i), 100 + i);
            dao(a).upsert(entry);
            dao(b).upsert(entry);
        }
        RepairSummary summary = repair(a, b, 3);
        assertEquals(0, summary.keysSent());
        assertEquals(0, summary.keysReceived());
        assertEquals(0, summary.segmentsDiffering());
        assertEquals(1, summary.hashesCompared(), "equal roots end the comparison");
    }

    @Test
    void oneKeyDifferingAmongManyIsTheOnlyKeySent() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < 20_000; i++) {
            dao(a).upsert(Entry.value(key(i), value(i), 100));
            dao(b).upsert(Entry.value(key(i), value(i), 100));
        }
        dao(a).upsert(Entry.value(key(4321), "newer".getBytes(StandardCharsets.UTF_8), 200));
        RepairSummary summary = repair(a, b, 3);
        assertEquals(1, summary.keysSent());
        assertEquals(0, summary.keysReceived());
        assertEquals(1, summary.segmentsDiffering());
        assertEquals(Entry.value(key(4321), "newer".getBytes(StandardCharsets.UTF_8), 200), dao(b).get(key(4321)));

        RepairSummary again = repair(b, a, 3);
        assertEquals(0, again.keysSent() + again.keysReceived());
    }

    /**
     * Two coordinators can give different values of one key the same timestamp. The larger value wins
     * on every store ({@link Entry#compareVersions}); repair must bring both replicas to it, whichever
     * side drives and whichever holds it.
     */
    @Test
    void twoValuesOfOneTimestampConvergeOnTheLargerWhicheverSideDrives() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < 2000; i++) {
            dao(a).upsert(Entry.value(key(i), value(i), 100));
            dao(b).upsert(Entry.value(key(i), value(i), 100));
        }
        byte[] small = "apple".getBytes(StandardCharsets.UTF_8);
        byte[] large = "pear".getBytes(StandardCharsets.UTF_8);
        dao(a).upsert(Entry.value(key(17), large, 300));
        dao(b).upsert(Entry.value(key(17), small, 300));
        dao(a).upsert(Entry.value(key(1234), small, 300));
        dao(b).upsert(Entry.value(key(1234), large, 300));

        RepairSummary summary = repair(a, b, 3);
        assertEquals(2, summary.keysSent(), "each side sends its value of each conflicting key");
        assertEquals(2, summary.keysReceived());
        for (RepairResponder side : List.of(a, b)) {
            assertEquals(Entry.value(key(17), large, 300), dao(side).get(key(17)));
            assertEquals(Entry.value(key(1234), large, 300), dao(side).get(key(1234)));
        }
        RepairSummary again = repair(b, a, 3);
        assertEquals(0, again.keysSent() + again.keysReceived(), "converged: the trees agree");
        assertEquals(0, again.segmentsDiffering());
    }

    @Test
    void aRepairedValueKeepsItsExpiry() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        long expiresAt = System.currentTimeMillis() + 3_600_000;
        Entry expiring = Entry.value(key(1), value(1), 100, expiresAt);
        dao(a).upsert(expiring);
        dao(b).upsert(Entry.value(key(2), value(2), 100, expiresAt));
        RepairSummary summary = repair(a, b, 3);
        assertEquals(1, summary.keysSent());
        assertEquals(1, summary.keysReceived());
        assertEquals(expiring, dao(b).get(key(1)), "the value arrives with its expiry");
        assertEquals(expiresAt, dao(a).get(key(2)).expiresAtMillis(), "both ways");
    }

    @Test
    void oneEmptySideReceivesEveryKeyWhicheverSideDrives() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        RepairResponder c = node(2);
        for (int i = 0; i < 10_000; i++) {
            dao(a).upsert(Entry.value(key(i), value(i), 100 + i));
        }
        RepairSummary pushed = repair(a, b, 3);
        assertEquals(10_000, pushed.keysSent());
        assertEquals(0, pushed.keysReceived());
        assertEquals(contents(dao(a)), contents(dao(b)));

        RepairSummary pulled = repair(c, a, 3);
        assertEquals(0, pulled.keysSent());
        assertEquals(10_000, pulled.keysReceived());
        assertEquals(contents(dao(a)), contents(dao(c)));
    }

    @Test
    void tombstonesSpreadAndNoOlderValueOverwritesThem() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        dao(a).upsert(Entry.tombstone(key(1), 500));
        dao(b).upsert(Entry.value(key(1), value(1), 400));
        dao(a).upsert(Entry.value(key(2), value(2), 400));
        dao(b).upsert(Entry.tombstone(key(2), 500));
        dao(a).upsert(Entry.value(key(3), value(3), 600));
        dao(b).upsert(Entry.tombstone(key(3), 600));
        dao(b).upsert(Entry.tombstone(key(4), 700));

        RepairSummary summary = repair(a, b, 3);

        assertEquals(1, summary.keysSent());
        assertEquals(3, summary.keysReceived());
        for (Dao dao : List.of(dao(a), dao(b))) {
            assertEquals(Entry.tombstone(key(1), 500), dao.get(key(1)));
            assertEquals(Entry.tombstone(key(2), 500), dao.get(key(2)));
            assertEquals(Entry.tombstone(key(3), 600), dao.get(key(3)), "a tombstone wins a tie with a value");
            assertEquals(Entry.tombstone(key(4), 700), dao.get(key(4)));
        }
    }

    @Test
    void onlyKeysBothNodesShouldHoldAreCompared() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        int shared = 0;
        for (int i = 0; i < 3000; i++) {
            dao(a).upsert(Entry.value(key(i), value(i), 100));
            if (holds(key(i), 2, 0, 1)) {
                shared++;
            }
        }
        RepairSummary summary = repair(a, b, 2);
        assertEquals(shared, summary.keysSent());
        for (int i = 0; i < 3000; i++) {
            assertEquals(holds(key(i), 2, 0, 1), dao(b).get(key(i)) != null, "key " + i);
        }
    }

    @Test
    void randomDivergenceConvergesOnTheNewestVersionOfEverySharedKeyAndSendsOnlyThoseRows() throws IOException {
        Random random = new Random(Seeds.seed("RepairExchangeTest.randomDivergence"));
        int replicationFactor = 2 + random.nextInt(2);
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        NavigableMap<byte[], Entry> expectedA = new TreeMap<>(Bytes.ORDER);
        NavigableMap<byte[], Entry> expectedB = new TreeMap<>(Bytes.ORDER);
        int differing = 0;
        int keys = 2000 + random.nextInt(8000);
        for (int i = 0; i < keys; i++) {
            byte[] key = key(random.nextInt(1_000_000));
            if (expectedA.containsKey(key) || expectedB.containsKey(key)) {
                continue;
            }
            Entry onA = random.nextInt(10) < 8 ? randomEntry(random, key) : null;
            Entry onB = random.nextInt(10) < 3 ? onA : random.nextInt(10) < 8 ? randomEntry(random, key) : null;
            if (onB != null && onA != null && onA.timestamp() == onB.timestamp() && onA.isTombstone() == onB.isTombstone()) {
                onB = onA;
            }
            Entry newest = newest(onA, onB);
            boolean shared = holds(key, replicationFactor, 0, 1);
            if (onA != null) {
                dao(a).upsert(onA);
            }
            if (onB != null) {
                dao(b).upsert(onB);
            }
            if (shared && newest != null) {
                expectedA.put(key, newest);
                expectedB.put(key, newest);
                if (onA != newest) {
                    differing++;
                }
                if (onB != newest) {
                    differing++;
                }
            } else {
                putIfPresent(expectedA, onA);
                putIfPresent(expectedB, onB);
            }
        }

        RepairSummary summary = random.nextBoolean() ? repair(a, b, replicationFactor) : repair(b, a, replicationFactor);

        assertEquals(differing, summary.keysSent() + summary.keysReceived(), "only the rows that differ travel");
        assertEquals(expectedA, contents(dao(a)));
        assertEquals(expectedB, contents(dao(b)));
        RepairSummary again = repair(a, b, replicationFactor);
        assertEquals(0, again.keysSent() + again.keysReceived());
        assertEquals(0, again.segmentsDiffering());
    }

    @Test
    void writesDuringAnExchangeAreNeverUndone() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < 5000; i++) {
            dao(a).upsert(Entry.value(key(i), value(i), 100));
        }
        FailingPeer racing = new FailingPeer(b) {
            @Override
            public java.util.concurrent.CompletionStage<Void> apply(List<Entry> entries) {
                try {
                    for (Entry entry : entries) {
                        dao(b).upsert(Entry.value(entry.key(), "fresh".getBytes(StandardCharsets.UTF_8), 1000));
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return super.apply(entries);
            }
        };
        repair(a, racing, 3);
        for (int i = 0; i < 5000; i++) {
            assertEquals(Entry.value(key(i), "fresh".getBytes(StandardCharsets.UTF_8), 1000), dao(b).get(key(i)));
        }
    }

    @Test
    void aPeerFailingMidExchangeFailsTheExchangeClosesTheTreesAndARerunSucceeds() throws IOException {
        RepairResponder a = node(0);
        RepairResponder b = node(1);
        for (int i = 0; i < 10_000; i++) {
            dao(a).upsert(Entry.value(key(i), value(i), 100));
        }
        FailingPeer dying = new FailingPeer(b);
        dying.failApplyAfter = 3;
        CompletionException failure = assertThrows(CompletionException.class,
                () -> RepairExchange.run(a, dying, 3, DEPTH, KeyInterval.ALL, executor).toCompletableFuture().join());
        assertInstanceOf(IOException.class, failure.getCause());
        assertEquals(0, a.openTrees());
        assertEquals(0, b.openTrees());

        RepairSummary rerun = repair(a, b, 3);
        assertEquals(10_000 - 3 * RepairExchange.KEYS_PER_BATCH, rerun.keysSent());
        assertEquals(contents(dao(a)), contents(dao(b)));
    }

    @Test
    void refusesBadTreeRequests() {
        RepairResponder a = node(0);
        for (Runnable bad : List.<Runnable>of(
                () -> a.startTree("http://nowhere:1", 3, DEPTH, KeyInterval.ALL),
                () -> a.startTree(NODES.get(0), 3, DEPTH, KeyInterval.ALL),
                () -> a.startTree(NODES.get(1), 4, DEPTH, KeyInterval.ALL),
                () -> a.startTree(NODES.get(1), 0, DEPTH, KeyInterval.ALL),
                () -> a.startTree(NODES.get(1), 3, 0, KeyInterval.ALL),
                () -> a.startTree(NODES.get(1), 3, 21, KeyInterval.ALL))) {
            assertThrows(IllegalArgumentException.class, bad::run);
        }
        CompletionException unknown = assertThrows(CompletionException.class,
                () -> a.hashes(12345, 0, new int[] {0}).toCompletableFuture().join());
        assertInstanceOf(IllegalArgumentException.class, unknown.getCause());
        assertEquals(0, a.openTrees());
    }

    @Test
    void holdsAtMostSoManyTreesAtOnce() {
        RepairResponder a = node(0);
        for (int i = 0; i < RepairResponder.MAX_TREES; i++) {
            a.openTree(NODES.get(1), 3, 4, KeyInterval.ALL).toCompletableFuture().join();
        }
        assertThrows(RepairBusyException.class, () -> a.startTree(NODES.get(1), 3, 4, KeyInterval.ALL));
    }

    @Test
    void aBatchHoldingAnEntryFromTheFutureIsRefusedWhole() throws IOException {
        RepairResponder a = node(0);
        HybridClock clock = new HybridClock();
        Entry present = Entry.value(key(1), value(1), clock.now());
        long farAhead = clock.now() + ((HybridClock.MAX_AHEAD_MILLIS + 60_000) << HybridClock.LOGICAL_BITS);
        for (long timestamp : new long[] {farAhead, Long.MAX_VALUE}) {
            Entry future = Entry.value(key(2), value(2), timestamp);
            CompletionException e = assertThrows(CompletionException.class,
                    () -> a.apply(List.of(present, future)).toCompletableFuture().join());
            assertInstanceOf(io.kvstore.cluster.TimestampOutOfBoundsException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("timestamped " + timestamp), e.getCause().getMessage());
        }
        assertNull(dao(a).get(key(1)), "nothing of the batch applied");
        assertNull(dao(a).get(key(2)));
        a.apply(List.of(present)).toCompletableFuture().join();
        assertEquals(present, dao(a).get(key(1)), "an entry of now is applied");
    }

    // ---- fixture ----

    private RepairResponder node(int index) {
        return stores.node(index);
    }

    private Dao dao(RepairResponder responder) {
        return stores.dao(responder);
    }

    private RepairSummary repair(RepairPeer local, RepairPeer peer, int replicationFactor) {
        return RepairExchange.run(local, peer, replicationFactor, DEPTH, KeyInterval.ALL, executor).toCompletableFuture().join();
    }

    private static boolean holds(byte[] key, int replicationFactor, int first, int second) {
        boolean sawFirst = false;
        boolean sawSecond = false;
        for (int node : PARTITIONER.replicas(key, replicationFactor)) {
            sawFirst |= node == first;
            sawSecond |= node == second;
        }
        return sawFirst && sawSecond;
    }

    private static Entry randomEntry(Random random, byte[] key) {
        long timestamp = 1 + random.nextInt(50);
        if (random.nextInt(4) == 0) {
            return Entry.tombstone(key, timestamp);
        }
        byte[] value = new byte[random.nextInt(40)];
        random.nextBytes(value);
        return Entry.value(key, value, timestamp);
    }

    private static Entry newest(Entry x, Entry y) {
        if (x == null || y == null) {
            return x == null ? y : x;
        }
        return KeyVersion.of(y).newerThan(KeyVersion.of(x)) ? y : x;
    }

    private static void putIfPresent(NavigableMap<byte[], Entry> map, Entry entry) {
        if (entry != null) {
            map.put(entry.key(), entry);
        }
    }

    private static NavigableMap<byte[], Entry> contents(Dao dao) throws IOException {
        return RepairStores.contents(dao, null, null);
    }

    @Test
    void keyVersionsOrderByTimestampThenTombstone() {
        KeyVersion value = new KeyVersion(key(1), 10, false, 7);
        KeyVersion tombstone = new KeyVersion(key(1), 10, true, 0);
        assertTrue(tombstone.newerThan(value));
        assertTrue(!value.newerThan(tombstone));
        assertTrue(new KeyVersion(key(1), 11, false, 7).newerThan(tombstone));
        assertTrue(!value.newerThan(value));
        KeyVersion another = new KeyVersion(key(1), 10, false, 8);
        assertTrue(!value.newerThan(another) && !another.newerThan(value));
        assertTrue(value.conflictsWith(another) && another.conflictsWith(value));
        assertTrue(!value.conflictsWith(value) && !value.conflictsWith(tombstone));
        assertTrue(!value.conflictsWith(new KeyVersion(key(1), 11, false, 8)));
        assertNull(new VersionPage(List.of(), true, null).through());
    }
}
