package io.kvstore.bench.peers;

/** kv-core's cleanup contract on {@link LevelDbDao}. */
class LevelDbDaoCleanupTest extends PeerSuites.Cleanup {
    LevelDbDaoCleanupTest() {
        super(BenchEngine.LEVELDB);
    }
}
