package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.RingTokens;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shares kvctl computes from a map agree with the partitioner the nodes place keys with, and the progress text says what it should. */
class KvctlSharesTest {
    private static final List<String> NODES = List.of("http://a:1", "http://b:1", "http://c:1", "http://d:1");

    @Test
    void eachKeyLiesInATokenRangeOfTheNodeThePartitionerMakesItsFirstReplica() {
        for (RingTokens tokens : RingTokens.values()) {
            ClusterMap map = ClusterMap.seed(NODES, 2, "ring", 16, tokens);
            RingRanges ring = RingRanges.of(map);
            Partitioner placement = map.placement();
            for (int i = 0; i < 2_000; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                long hash = KeyHash.hash64(key);
                int primary = placement.primary(key);
                assertTrue(ring.ranges(primary).stream().anyMatch(range -> within(hash, range[0], range[1])),
                        tokens + ": key-" + i + " placed on " + NODES.get(primary));
            }
        }
    }

    @Test
    void theExactSharesOfTheRingMatchTheSharesOfPlacedKeys() {
        ClusterMap map = ClusterMap.seed(NODES, 3, "ring", 16, RingTokens.ALLOCATED);
        KeyShares exact = KeyShares.of(map, 1);
        double[] counted = new double[NODES.size()];
        Partitioner placement = map.placement();
        int keys = 200_000;
        for (int i = 0; i < keys; i++) {
            for (int replica : placement.replicas(("k" + i).getBytes(StandardCharsets.UTF_8), 3)) {
                counted[replica] += 1.0 / keys;
            }
        }
        double sum = 0;
        for (int n = 0; n < NODES.size(); n++) {
            assertEquals(counted[n], exact.replicas()[n], 0.01, NODES.get(n));
            sum += exact.primary()[n];
        }
        assertEquals(1.0, sum, 1e-9, "the first replicas' shares cover the ring once");
        KeyShares sampled = KeyShares.of(ClusterMap.seed(NODES, 2, "jump", 16, RingTokens.RANDOM), 40_000);
        assertEquals(2.0, sampled.replicas()[0] + sampled.replicas()[1] + sampled.replicas()[2] + sampled.replicas()[3], 1e-9);
        assertEquals("40000 sampled keys", sampled.method());
    }

    @Test
    void theProgressBarCountsStreamsAndEstimatesTheTimeLeftFromThoseDone() {
        JsonObject change = new JsonObject().put("status", "running").put("step", "streaming").put("streams", 4)
                .put("streamsDone", 1).put("entriesStreamed", 1200);
        assertEquals("[#######-----------------------] 1/4 streams, 1200 entries, streaming, 0:10 elapsed, ETA 0:30",
                ProgressBar.render(change, Duration.ofSeconds(10)));
        assertTrue(ProgressBar.render(change.put("streamsDone", 0), Duration.ofSeconds(10)).endsWith("ETA --"));
        assertTrue(ProgressBar.render(change.put("status", "done").put("streamsDone", 4), Duration.ofHours(1).plusSeconds(5))
                .endsWith("4/4 streams, 1200 entries, streaming, 1:00:05 elapsed"));
    }

    @Test
    void theProgressBarCountsKeysReadWhenTheChangeReportsThem() {
        JsonObject change = new JsonObject().put("status", "running").put("step", "streaming").put("streams", 3)
                .put("streamsDone", 0).put("keysScanned", 2500).put("keysToScan", 10000).put("entriesStreamed", 625)
                .put("bytesStreamed", 3 << 20);
        assertEquals("[#######-----------------------] 0/3 streams, 25.0% of keys read, 625 entries (3.0 MiB), streaming,"
                + " 0:10 elapsed, ETA 0:30", ProgressBar.render(change, Duration.ofSeconds(10)));
        // An estimate: keys read past it fill the bar, and a change whose streams are done is full.
        assertTrue(ProgressBar.render(change.put("keysScanned", 12000), Duration.ofSeconds(10))
                .startsWith("[" + "#".repeat(30) + "] 0/3 streams, 100.0% of keys read"));
        assertTrue(ProgressBar.render(change.put("streamsDone", 3).put("keysScanned", 9000).put("status", "done"),
                Duration.ofSeconds(40)).startsWith("[" + "#".repeat(30) + "] 3/3 streams, 625 entries (3.0 MiB), streaming"));
    }

    /** Whether {@code hash} lies in the ring range {@code (start, end]}, wrapping round. */
    private static boolean within(long hash, long start, long end) {
        return start < end ? hash > start && hash <= end : hash > start || hash <= end;
    }
}
