package io.kvstore.core.rocksdb;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoCleanupContractTest;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

class RocksDbDaoCleanupTest extends DaoCleanupContractTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return RocksDbDao.open(options);
    }
}
