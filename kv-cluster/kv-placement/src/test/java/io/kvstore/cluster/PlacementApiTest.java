package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.ApiSurface;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * kv-placement's public API is the list below and nothing else: a public top-level class outside
 * {@code io.kvstore.cluster.internal} fails this test until it is added here on purpose, and no public
 * signature of the API may name an internal type.
 */
class PlacementApiTest {
    private static final String INTERNAL = "io.kvstore.cluster.internal.";
    private static final ApiSurface SURFACE = new ApiSurface(Partitioner.class, INTERNAL);

    /** Every public top-level type of kv-placement outside the internal packages. */
    private static final Set<String> API = Set.of(
            "io.kvstore.cluster.KeyHash",
            "io.kvstore.cluster.Partitioner",
            "io.kvstore.cluster.Partitioners",
            "io.kvstore.cluster.membership.ClusterMap",
            "io.kvstore.cluster.membership.ClusterMapCodec",
            "io.kvstore.cluster.membership.Member",
            "io.kvstore.cluster.membership.NodeState",
            "io.kvstore.cluster.membership.NodeUrl",
            "io.kvstore.cluster.membership.RingTokens");

    @Test
    void onlyTheListedTypesArePublicOutsideInternal() throws Exception {
        SURFACE.assertPublicTypes("kv-placement", API);
    }

    @Test
    void theScanSeesTheInternalPackage() throws Exception {
        // Guards the scan itself: were it to miss the compiled classes, the list above could not fail.
        List<String> all = SURFACE.topLevelClassNames();
        assertTrue(all.contains("io.kvstore.cluster.RingPartitioner"), "no RingPartitioner among " + all.size() + " classes");
        assertTrue(Modifier.isPublic(SURFACE.load(INTERNAL + "TokenAllocator").getModifiers()));
    }

    @Test
    void noApiSignatureNamesAnInternalType() throws Exception {
        SURFACE.assertNoInternalTypeNamedBy(API);
    }
}
