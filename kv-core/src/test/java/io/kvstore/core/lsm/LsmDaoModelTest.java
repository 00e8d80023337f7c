package io.kvstore.core.lsm;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoModelTest;
import io.kvstore.core.DaoOptions;
import java.io.IOException;

class LsmDaoModelTest extends DaoModelTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return LsmDao.open(options);
    }
}
