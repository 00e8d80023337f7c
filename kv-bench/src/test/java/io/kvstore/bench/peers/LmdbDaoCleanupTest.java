package io.kvstore.bench.peers;

/** kv-core's cleanup contract on {@link LmdbDao}. */
class LmdbDaoCleanupTest extends PeerSuites.Cleanup {
    LmdbDaoCleanupTest() {
        super(BenchEngine.LMDB);
    }
}
