package io.kvstore.bench.peers;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoCleanupContractTest;
import io.kvstore.core.DaoContractTest;
import io.kvstore.core.DaoOptions;
import java.io.IOException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.RegisterExtension;

/** kv-core's contract suites on {@link LmdbDao}, on real files, less the gaps listed here. */
class LmdbDaoTest {
    @RegisterExtension
    static final ContractGaps GAPS = ContractGaps.of();

    @Nested
    class Contract extends DaoContractTest {
        @Override
        protected Dao open(DaoOptions options) throws IOException {
            return LmdbDao.open(options);
        }
    }

    @Nested
    class Cleanup extends DaoCleanupContractTest {
        @Override
        protected Dao open(DaoOptions options) throws IOException {
            return LmdbDao.open(options);
        }
    }
}
