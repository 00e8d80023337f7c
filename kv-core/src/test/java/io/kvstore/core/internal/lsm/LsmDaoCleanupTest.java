package io.kvstore.core.internal.lsm;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoCleanupContractTest;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

class LsmDaoCleanupTest extends DaoCleanupContractTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return LsmDao.open(options);
    }
}
