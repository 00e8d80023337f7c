package io.kvstore.bench.peers;

/** kv-core's cleanup contract on {@link MvStoreDao}. */
class MvStoreDaoCleanupTest extends PeerSuites.Cleanup {
    MvStoreDaoCleanupTest() {
        super(BenchEngine.MVSTORE);
    }
}
