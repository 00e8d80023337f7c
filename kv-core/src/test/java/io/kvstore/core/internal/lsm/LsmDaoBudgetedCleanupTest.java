package io.kvstore.core.internal.lsm;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import java.io.IOException;

/** {@link LsmDaoCleanupTest} with compactions and cleanups drawing from a background budget at its floor. */
class LsmDaoBudgetedCleanupTest extends LsmDaoCleanupTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return super.open(BudgetedStores.atTheFloor(options));
    }
}
