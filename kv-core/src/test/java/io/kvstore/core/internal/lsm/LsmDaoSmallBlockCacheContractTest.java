package io.kvstore.core.internal.lsm;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

/**
 * {@link LsmDaoContractTest} with a block cache of four blocks, so that concurrent readers evict
 * each other's blocks all the time.
 */
class LsmDaoSmallBlockCacheContractTest extends LsmDaoContractTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return LsmDao.open(options.toBuilder().compression(compression()).blockCacheBytes(16 << 10).build());
    }
}
