package io.kvstore.core.rocksdb;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoContractTest;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

class RocksDbDaoContractTest extends DaoContractTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return RocksDbDao.open(options);
    }
}
