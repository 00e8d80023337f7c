package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import org.junit.jupiter.api.Tag;

import java.io.IOException;

/** {@link LsmDaoModelTest} with zstd tables and a block cache of four blocks, evicting all the time. */
@Tag("slow")
class LsmDaoSmallBlockCacheModelTest extends LsmDaoModelTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return LsmDao.open(options.toBuilder().compression(Compression.ZSTD).blockCacheBytes(16 << 10).build());
    }

    @Override
    protected int defaultOperations() {
        return 10_000;
    }
}
