package io.kvstore.core.internal.lsm;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import java.io.IOException;
import org.junit.jupiter.api.Tag;

/** {@link LsmDaoModelTest} with compactions drawing from a background budget at its floor. */
@Tag("slow")
class LsmDaoBudgetedModelTest extends LsmDaoModelTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return super.open(BudgetedStores.atTheFloor(options));
    }

    @Override
    protected int defaultOperations() {
        return 15_000;
    }
}
