package io.kvstore.core.rocksdb;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoModelTest;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

class RocksDbDaoModelTest extends DaoModelTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return RocksDbDao.open(options);
    }
}
