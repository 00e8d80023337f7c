package io.kvstore.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.ApiSurface;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * kv-core's public API is the list below and nothing else: a public top-level class outside
 * {@code io.kvstore.core.internal} fails this test until it is added here on purpose, and no public
 * signature of the API may name an internal type.
 */
class PublicApiTest {
    private static final String INTERNAL = "io.kvstore.core.internal.";
    private static final ApiSurface SURFACE = new ApiSurface(Dao.class, INTERNAL);

    /** Every public top-level type of kv-core outside the internal packages. */
    private static final Set<String> API = Set.of(
            "io.kvstore.core.AtomicFile",
            "io.kvstore.core.BackgroundPriority",
            "io.kvstore.core.BlockCacheProperties",
            "io.kvstore.core.Bytes",
            "io.kvstore.core.CloseableIterator",
            "io.kvstore.core.CompactionStyle",
            "io.kvstore.core.Compression",
            "io.kvstore.core.CorruptionException",
            "io.kvstore.core.Dao",
            "io.kvstore.core.DaoOptions",
            "io.kvstore.core.DaoProperties",
            "io.kvstore.core.DaoStats",
            "io.kvstore.core.DiskFailurePolicy",
            "io.kvstore.core.DiskSpace",
            "io.kvstore.core.Engine",
            "io.kvstore.core.Entry",
            "io.kvstore.core.InsufficientStorageException",
            "io.kvstore.core.KeyFilter",
            "io.kvstore.core.KvStore",
            "io.kvstore.core.QuarantinedInterval",
            "io.kvstore.core.ScrubReport",
            "io.kvstore.core.Storage",
            "io.kvstore.core.StoreHealth",
            "io.kvstore.core.SyncPolicy",
            "io.kvstore.core.UnavailableIntervalException",
            "io.kvstore.core.WritesStoppedException",
            "io.kvstore.core.background.BackgroundBudget",
            "io.kvstore.core.background.BackgroundWork",
            "io.kvstore.core.background.BudgetController",
            "io.kvstore.core.background.BudgetLane",
            "io.kvstore.core.background.ForegroundSignal",
            "io.kvstore.core.rocksdb.RocksDbDao");

    @Test
    void onlyTheListedTypesArePublicOutsideInternal() throws Exception {
        SURFACE.assertPublicTypes("kv-core", API);
    }

    @Test
    void theScanSeesTheInternalPackages() throws Exception {
        // Guards the scan itself: were it to miss the compiled classes, the list above could not fail.
        List<String> all = SURFACE.topLevelClassNames();
        assertTrue(all.contains(INTERNAL + "table.SsTable"), "no SsTable among " + all.size() + " classes");
        assertTrue(Modifier.isPublic(SURFACE.load(INTERNAL + "lsm.LsmDao").getModifiers()));
    }

    @Test
    void noApiSignatureNamesAnInternalType() throws Exception {
        SURFACE.assertNoInternalTypeNamedBy(API);
    }
}
