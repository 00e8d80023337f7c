package io.kvstore.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.RingTokens;
import io.kvstore.server.internode.MapDivergence;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MapDivergenceTest {
    private static final List<String> NODES = List.of("http://a:1", "http://b:2", "http://c:3");
    private static final ClusterMap RANDOM = ClusterMap.seed(NODES, 3, "ring", 16, RingTokens.RANDOM);
    private static final ClusterMap ALLOCATED = ClusterMap.seed(NODES, 3, "ring", 16, RingTokens.ALLOCATED);

    @Test
    void aPeerOnAnotherMapOfTheSameEpochIsRefusedAndCountedEveryTime() {
        MapDivergence divergence = new MapDivergence("http://a:1", () -> RANDOM);
        String refusal = divergence.refusal("1", ALLOCATED.fingerprintText(), "http://c:3");
        assertNotNull(refusal);
        assertTrue(refusal.contains("http://c:3") && refusal.contains("http://a:1"), refusal);
        assertTrue(refusal.contains(ALLOCATED.fingerprintText()) && refusal.contains(RANDOM.fingerprintText()), refusal);
        assertNotNull(divergence.check(1, ALLOCATED.fingerprintText(), "http://c:3"));
        assertEquals(2, divergence.count());
    }

    @Test
    void madeUpPeersAndFingerprintsAreLoggedOnlyUpToABound() {
        MapDivergence divergence = new MapDivergence("http://a:1", () -> RANDOM);
        try (LogCapture log = LogCapture.start()) {
            for (int i = 0; i < 1000; i++) {
                assertNotNull(divergence.refusal("1", "f" + i, "http://x" + i + ":1"), "every one is still refused");
            }
            long errors = log.warningsAndErrors().stream().filter(line -> line.contains("cluster map mismatch")).count();
            assertEquals(MapDivergence.MAX_LOGGED, errors);
        }
        assertEquals(1000, divergence.count(), "and counted");
    }

    @Test
    void theSameMapOtherEpochsAndRequestsWithoutTheHeadersPass() {
        AtomicReference<ClusterMap> ours = new AtomicReference<>(RANDOM);
        MapDivergence divergence = new MapDivergence("http://a:1", ours::get);
        assertNull(divergence.refusal("1", RANDOM.fingerprintText(), "http://b:2"), "the same map");
        assertNull(divergence.refusal("2", ALLOCATED.fingerprintText(), "http://b:2"), "a newer map is pulled, not refused");
        assertNull(divergence.refusal(null, ALLOCATED.fingerprintText(), "http://b:2"), "no epoch");
        assertNull(divergence.refusal("1", null, "http://b:2"), "a node that sends no fingerprint");
        assertNull(divergence.refusal("x", ALLOCATED.fingerprintText(), "http://b:2"), "a malformed epoch");
        ours.set(null);
        assertNull(divergence.refusal("1", ALLOCATED.fingerprintText(), "http://b:2"), "no map yet");
        assertEquals(0, divergence.count());
        ours.set(RANDOM.withJoining("http://d:4"));
        assertNull(divergence.refusal("1", ALLOCATED.fingerprintText(), "http://b:2"), "an older map");
        assertNotNull(divergence.refusal("2", ALLOCATED.withJoining("http://d:4").fingerprintText(), null));
        assertEquals(1, divergence.count());
    }
}
