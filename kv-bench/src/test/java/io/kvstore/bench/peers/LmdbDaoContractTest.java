package io.kvstore.bench.peers;

/** kv-core's Dao contract on {@link LmdbDao}. */
class LmdbDaoContractTest extends PeerSuites.Contract {
    LmdbDaoContractTest() {
        super(BenchEngine.LMDB);
    }
}
