package io.kvstore.bench.peers;

/** kv-core's Dao contract on {@link MvStoreDao}. */
class MvStoreDaoContractTest extends PeerSuites.Contract {
    MvStoreDaoContractTest() {
        super(BenchEngine.MVSTORE);
    }
}
