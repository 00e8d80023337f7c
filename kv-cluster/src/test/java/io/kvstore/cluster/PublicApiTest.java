package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.ApiSurface;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * kv-cluster's public API is the list below and nothing else: a public top-level class outside
 * {@code io.kvstore.cluster.internal} fails this test until it is added here on purpose, and no public
 * signature of the API may name an internal type. The placement types it builds on are kv-placement's,
 * with a list of their own.
 */
class PublicApiTest {
    private static final String INTERNAL = "io.kvstore.cluster.internal.";
    private static final ApiSurface SURFACE = new ApiSurface(ReplicaCoordinator.class, INTERNAL);

    /** Every public top-level type of kv-cluster outside the internal packages. */
    private static final Set<String> API = Set.of(
            "io.kvstore.cluster.ClockLease",
            "io.kvstore.cluster.FailureDetector",
            "io.kvstore.cluster.HintSink",
            "io.kvstore.cluster.HybridClock",
            "io.kvstore.cluster.InvalidQuorumException",
            "io.kvstore.cluster.LocalReplica",
            "io.kvstore.cluster.NodeDrainingException",
            "io.kvstore.cluster.NotEnoughReplicasException",
            "io.kvstore.cluster.PeerState",
            "io.kvstore.cluster.Quorum",
            "io.kvstore.cluster.ReadRepair",
            "io.kvstore.cluster.Replica",
            "io.kvstore.cluster.ReplicaCoordinator",
            "io.kvstore.cluster.ReplicaEndpoint",
            "io.kvstore.cluster.ReplicaOverloadedException",
            "io.kvstore.cluster.ReplicationOptions",
            "io.kvstore.cluster.StaleEpochException",
            "io.kvstore.cluster.StaleWriteSink",
            "io.kvstore.cluster.TimestampOutOfBoundsException");

    @Test
    void onlyTheListedTypesArePublicOutsideInternal() throws Exception {
        SURFACE.assertPublicTypes("kv-cluster", API);
    }

    @Test
    void theScanSeesTheInternalPackages() throws Exception {
        // Guards the scan itself: were it to miss the compiled classes, the list above could not fail.
        List<String> all = SURFACE.topLevelClassNames();
        assertTrue(all.contains(INTERNAL + "repair.SegmentTree"), "no SegmentTree among " + all.size() + " classes");
        assertTrue(all.contains("io.kvstore.cluster.QuorumRound"), "no QuorumRound among " + all.size() + " classes");
        assertTrue(Modifier.isPublic(SURFACE.load(INTERNAL + "membership.KeyStreamer").getModifiers()));
    }

    @Test
    void noApiSignatureNamesAnInternalType() throws Exception {
        SURFACE.assertNoInternalTypeNamedBy(API);
    }
}
