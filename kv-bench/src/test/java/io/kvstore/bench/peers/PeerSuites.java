package io.kvstore.bench.peers;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoCleanupContractTest;
import io.kvstore.core.DaoContractTest;
import io.kvstore.core.DaoOptions;
import java.io.IOException;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kv-core's contract suites on a peer store, on real files, less the {@link ContractGaps}: a peer's test
 * class extends one of these with its engine, so each peer's report names its own suite.
 */
final class PeerSuites {
    private PeerSuites() {
    }

    abstract static class Contract extends DaoContractTest {
        @RegisterExtension
        static final ContractGaps GAPS = ContractGaps.of();

        private final BenchEngine engine;

        Contract(BenchEngine engine) {
            this.engine = engine;
        }

        @Override
        protected Dao open(DaoOptions options) throws IOException {
            return engine.open(options);
        }
    }

    abstract static class Cleanup extends DaoCleanupContractTest {
        private final BenchEngine engine;

        Cleanup(BenchEngine engine) {
            this.engine = engine;
        }

        @Override
        protected Dao open(DaoOptions options) throws IOException {
            return engine.open(options);
        }
    }
}
