package io.kvstore.core.lsm;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoContractTest;
import io.kvstore.core.DaoOptions;
import java.io.IOException;

class LsmDaoContractTest extends DaoContractTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return LsmDao.open(options);
    }
}
