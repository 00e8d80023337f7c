package io.kvstore.bench.peers;

/** kv-core's Dao contract on {@link LevelDbDao}. */
class LevelDbDaoContractTest extends PeerSuites.Contract {
    LevelDbDaoContractTest() {
        super(BenchEngine.LEVELDB);
    }
}
