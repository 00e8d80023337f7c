package io.kvstore.cluster.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    void aCorruptMapFileIsAnErrorNamingIt(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve(ClusterMapStore.FILE), "{not json");
        IOException e = assertThrows(IOException.class, () -> ClusterMapStore.open(dir, null));
        assertTrue(e.getMessage().contains(ClusterMapStore.FILE), e.getMessage());
    }
}
