package io.kvstore.cluster.membership;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.internal.TokenAllocator;
import io.kvstore.cluster.internal.membership.ClusterMapStore;
import io.kvstore.core.testing.FaultyStorage.Op;
import io.kvstore.core.testing.FaultyStorage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterMapTest {
    private static final List<String> THREE = List.of("http://a:1", "http://b:2", "http://c:3");

    @Test
    void jsonRoundTripKeepsEveryField() {
        ClusterMap map = ClusterMap.seed(THREE, 2, "rendezvous", 16).withJoining("http://d:4");
        String json = ClusterMapCodec.toJson(map);
        assertEquals(map, ClusterMapCodec.fromJson(json));
        assertTrue(json.contains("\"state\":\"joining\""), json);
        assertTrue(json.contains("\"epoch\":2"), json);
    }

    @Test
    void allocatedTokensTravelInTheJsonAsDecimalStrings() {
        ClusterMap map = ClusterMap.seed(THREE, 2, "ring", 16, RingTokens.ALLOCATED).withJoining("http://d:4");
        String json = ClusterMapCodec.toJson(map);
        ClusterMap read = ClusterMapCodec.fromJson(json);
        assertEquals(map, read);
        assertEquals(RingTokens.ALLOCATED, read.ringTokens());
        assertEquals(16, read.member("http://d:4").tokens().size());
        assertTrue(json.contains("\"tokens\":[\"-9223372036854775808\","), json);
    }

    @Test
    void aMapWithoutTokensStillReadsAndHashesItsTokens() {
        String json = "{\"epoch\":3,\"replicationFactor\":2,\"partitioner\":\"ring\",\"virtualNodes\":256,"
                + "\"nodes\":[{\"url\":\"http://a:1\",\"state\":\"normal\"},{\"url\":\"http://b:2\",\"state\":\"normal\"},"
                + "{\"url\":\"http://c:3\",\"state\":\"normal\"}]}";
        ClusterMap map = ClusterMapCodec.fromJson(json);
        assertEquals(RingTokens.RANDOM, map.ringTokens());
        assertEquals(json, ClusterMapCodec.toJson(map), "a map without tokens is written as it was read");
        Partitioner hashed = Partitioners.create("ring", THREE, 256);
        Partitioner placement = map.placement();
        for (int k = 0; k < 1000; k++) {
            byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(hashed.replicas(key, 2), placement.replicas(key, 2));
        }
    }

    @Test
    void membersKeepTheirTokensThroughEveryChange() {
        ClusterMap seed = ClusterMap.seed(THREE, 2, "ring", 8, RingTokens.ALLOCATED);
        ClusterMap joined = seed.withJoining("http://d:4").withState("http://d:4", NodeState.NORMAL);
        for (String url : THREE) {
            assertEquals(seed.member(url).tokens(), joined.member(url).tokens(), url);
        }
        ClusterMap left = joined.withState("http://b:2", NodeState.LEAVING).without("http://b:2");
        for (String url : List.of("http://a:1", "http://c:3", "http://d:4")) {
            assertEquals(joined.member(url).tokens(), left.member(url).tokens(), url);
        }
        // The new node's tokens are those the allocator chooses given every member's tokens.
        List<long[]> placed = new ArrayList<>();
        for (String url : THREE) {
            placed.add(seed.member(url).tokens().stream().mapToLong(Long::longValue).toArray());
        }
        assertArrayEquals(TokenAllocator.allocate(placed, 8, 2),
                joined.member("http://d:4").tokens().stream().mapToLong(Long::longValue).toArray());
    }

    @Test
    void thePlacementOfAnAllocatedMapIsTheRingOfItsTokens() {
        ClusterMap joining = ClusterMap.seed(THREE, 2, "ring", 16, RingTokens.ALLOCATED).withJoining("http://d:4");
        List<long[]> tokens = new ArrayList<>();
        for (String url : joining.futureOwners()) {
            tokens.add(joining.member(url).tokens().stream().mapToLong(Long::longValue).toArray());
        }
        Partitioner expected = Partitioners.ring(joining.futureOwners(), tokens);
        Partitioner future = joining.futurePlacement();
        assertEquals(THREE, joining.placement().nodes());
        for (int k = 0; k < 1000; k++) {
            byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(expected.replicas(key, 3), future.replicas(key, 3));
        }
        IllegalArgumentException stranger = assertThrows(IllegalArgumentException.class,
                () -> joining.placement(List.of("http://a:1", "http://x:9")));
        assertTrue(stranger.getMessage().contains("http://x:9"), stranger.getMessage());
    }

    @Test
    void mapsWithInconsistentTokensAreRefused() {
        List<Long> one = List.of(1L);
        List<Long> two = List.of(2L);
        assertRefused("node http://b:2 has 0 tokens", List.of(
                new Member("http://a:1", NodeState.NORMAL, one), new Member("http://b:2", NodeState.NORMAL)), "ring", 1);
        assertRefused("either every node of the map has tokens or none", List.of(
                new Member("http://a:1", NodeState.NORMAL), new Member("http://b:2", NodeState.NORMAL, one)), "ring", 1);
        assertRefused("has 1 tokens; the map gives every node 2", List.of(
                new Member("http://a:1", NodeState.NORMAL, one), new Member("http://b:2", NodeState.NORMAL, two)), "ring", 2);
        assertRefused("token 1 of node http://b:2 is held by another node", List.of(
                new Member("http://a:1", NodeState.NORMAL, one), new Member("http://b:2", NodeState.NORMAL, one)), "ring", 1);
        assertRefused("only the ring has tokens", List.of(
                new Member("http://a:1", NodeState.NORMAL, one), new Member("http://b:2", NodeState.NORMAL, two)), "jump", 1);
        IllegalArgumentException badToken = assertThrows(IllegalArgumentException.class, () -> ClusterMapCodec.fromJson(
                "{\"epoch\":1,\"replicationFactor\":1,\"partitioner\":\"ring\",\"virtualNodes\":1,"
                        + "\"nodes\":[{\"url\":\"http://a:1\",\"state\":\"normal\",\"tokens\":[\"12x\"]}]}"));
        assertTrue(badToken.getMessage().contains("'12x' is not a signed 64-bit integer"), badToken.getMessage());
    }

    private static void assertRefused(String expected, List<Member> members, String partitioner, int virtualNodes) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ClusterMap(1, 1, partitioner, virtualNodes, members));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void malformedJsonIsRefusedWithAReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClusterMapCodec.fromJson("{\"epoch\":1,\"nodes\":[]}"));
        assertTrue(e.getMessage().contains("replicationFactor"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClusterMapCodec.fromJson("[1]"));
        assertThrows(IllegalArgumentException.class, () -> ClusterMapCodec.fromJson("{\"epoch\":"));
    }

    @Test
    void ownersAndFutureOwnersFollowStates() {
        ClusterMap joining = ClusterMap.seed(THREE, 3, "ring", 8).withJoining("http://d:4");
        assertEquals(THREE, joining.owners());
        assertEquals(List.of("http://a:1", "http://b:2", "http://c:3", "http://d:4"), joining.futureOwners());
        assertTrue(joining.inTransition());
        ClusterMap normal = joining.withState("http://d:4", NodeState.NORMAL);
        assertFalse(normal.inTransition());
        ClusterMap leaving = normal.withState("http://a:1", NodeState.LEAVING);
        assertEquals("http://a:1", leaving.claimant());
        assertEquals(List.of("http://b:2", "http://c:3", "http://d:4"), leaving.futureOwners());
        assertEquals("http://b:2", leaving.without("http://a:1").claimant());
        assertEquals(5, leaving.without("http://a:1").epoch());
    }

    @Test
    void readsMoveToTheFutureOwnersInAMapOfTheirOwnWhileWritesReachBothSides() {
        ClusterMap joining = ClusterMap.seed(THREE, 3, "ring", 8).withJoining("http://d:4");
        assertFalse(joining.readsMoved());
        assertEquals(joining.owners(), joining.readOwners());
        assertEquals(joining.futureOwners(), joining.pendingOwners());
        ClusterMap moved = joining.withReadsMoved();
        assertEquals(joining.epoch() + 1, moved.epoch());
        assertTrue(moved.readsMoved());
        assertTrue(moved.inTransition());
        assertEquals(joining.futureOwners(), moved.readOwners());
        assertEquals(joining.owners(), moved.pendingOwners());
        assertEquals(moved.readOwners(), moved.readPlacement().nodes());
        assertEquals(moved.pendingOwners(), moved.pendingPlacement().nodes());
        assertNotEquals(joining.withState("http://d:4", NodeState.JOINING).fingerprint(), moved.fingerprint(),
                "the same members at the same epoch, reads moved or not");
        ClusterMap done = moved.withState("http://d:4", NodeState.NORMAL);
        assertFalse(done.readsMoved(), "the map that ends the change");
        assertThrows(IllegalStateException.class, moved::withReadsMoved, "reads move once");
        assertThrows(IllegalStateException.class, done::withReadsMoved, "no change in progress");
        IllegalArgumentException atRest = assertThrows(IllegalArgumentException.class, () -> new ClusterMap(3, 3, "ring", 8,
                done.members(), true));
        assertTrue(atRest.getMessage().contains("only while a change is in progress"), atRest.getMessage());
        String json = ClusterMapCodec.toJson(moved);
        assertTrue(json.contains("\"readsMoved\":true"), json);
        assertEquals(moved, ClusterMapCodec.fromJson(json));
        assertEquals(moved.fingerprint(), ClusterMapCodec.fromJson(json).fingerprint());
        assertFalse(ClusterMapCodec.toJson(joining).contains("readsMoved"), "absent unless moved: older nodes read the map as before");
        IllegalArgumentException notBoolean = assertThrows(IllegalArgumentException.class,
                () -> ClusterMapCodec.fromJson(json.replace("\"readsMoved\":true", "\"readsMoved\":\"yes\"")));
        assertTrue(notBoolean.getMessage().contains("readsMoved"), notBoolean.getMessage());
    }

    @Test
    void changesThatBreakTheMapAreRefused() {
        ClusterMap map = ClusterMap.seed(THREE, 3, "ring", 8);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> map.withJoining("http://b:2"));
        assertTrue(twice.getMessage().contains("already in the cluster map"), twice.getMessage());
        IllegalArgumentException belowRf = assertThrows(IllegalArgumentException.class, () -> map.without("http://a:1"));
        assertTrue(belowRf.getMessage().contains("replication factor 3"), belowRf.getMessage());
        assertThrows(IllegalArgumentException.class, () -> map.without("http://x:9"));
    }

    @Test
    void storeKeepsTheMapAcrossReopensAndOnlyMovesForward(@TempDir Path dir) throws IOException {
        ClusterMap seed = ClusterMap.seed(THREE, 2, "ring", 8);
        ClusterMapStore store = ClusterMapStore.open(dir, seed);
        ClusterMap next = seed.withJoining("http://d:4");
        assertFalse(store.compareAndSet(5, next));
        assertTrue(store.compareAndSet(1, next));
        assertFalse(store.compareAndSet(1, seed.withJoining("http://e:5")), "a second change from the same epoch forks");
        assertFalse(store.adopt(seed));
        assertEquals(next, ClusterMapStore.open(dir, seed).current(), "the kept map wins over the seed");
        ClusterMapStore empty = ClusterMapStore.open(dir.resolve("other"), null);
        assertNull(empty.current());
        assertTrue(empty.adopt(next));
    }

    @Test
    void aMapThatCannotBeRenamedIntoPlaceIsNotAdoptedAndAKeptOneOutlivesAPowerCut(@TempDir Path dir)
            throws IOException {
        FaultyStorage storage = new FaultyStorage();
        ClusterMap seed = ClusterMap.seed(THREE, 2, "ring", 8);
        ClusterMapStore store = ClusterMapStore.open(storage, dir, seed);
        ClusterMap next = seed.withJoining("http://d:4");
        storage.failNth(Op.RENAME, ClusterMapStore.FILE, 1);
        assertThrows(IOException.class, () -> store.compareAndSet(1, next));
        assertEquals(seed, store.current());
        storage.powerCut();
        storage.powerOn();
        ClusterMapStore restarted = ClusterMapStore.open(storage, dir, null);
        assertEquals(seed, restarted.current());
        assertTrue(restarted.compareAndSet(1, next));
        storage.powerCut();
        storage.powerOn();
        assertEquals(next, ClusterMapStore.open(storage, dir, null).current());
    }

    @Test
    void aCorruptMapFileIsAnErrorNamingIt(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve(ClusterMapStore.FILE), "{not json");
        IOException e = assertThrows(IOException.class, () -> ClusterMapStore.open(dir, null));
        assertTrue(e.getMessage().contains(ClusterMapStore.FILE), e.getMessage());
    }

    @Test
    void theFingerprintTellsMapsOfOneEpochApartAndSurvivesTheCodec() {
        ClusterMap random = ClusterMap.seed(THREE, 3, "ring", 16, RingTokens.RANDOM);
        ClusterMap allocated = ClusterMap.seed(THREE, 3, "ring", 16, RingTokens.ALLOCATED);
        assertEquals(random.epoch(), allocated.epoch());
        assertNotEquals(random.fingerprint(), allocated.fingerprint(), "same epoch, other tokens");
        assertEquals(random.fingerprint(), ClusterMap.seed(THREE, 3, "ring", 16, RingTokens.RANDOM).fingerprint());
        assertEquals(allocated.fingerprint(), ClusterMapCodec.fromJson(ClusterMapCodec.toJson(allocated)).fingerprint());
        assertNotEquals(random.fingerprint(), ClusterMap.seed(THREE, 2, "ring", 16).fingerprint(), "replication factor");
        assertNotEquals(random.fingerprint(), ClusterMap.seed(THREE, 3, "ring", 32).fingerprint(), "virtual nodes");
        assertNotEquals(random.fingerprint(), ClusterMap.seed(List.of("http://a:1", "http://c:3", "http://b:2"), 3, "ring", 16)
                .fingerprint(), "node order");
        ClusterMap leaving = random.withState("http://b:2", NodeState.LEAVING);
        assertNotEquals(leaving.fingerprint(), random.withJoining("http://d:4").fingerprint(), "states and members");
        assertEquals(16, random.fingerprintText().length());
        assertEquals(String.format("%016x", random.fingerprint()), random.fingerprintText());
    }
}
