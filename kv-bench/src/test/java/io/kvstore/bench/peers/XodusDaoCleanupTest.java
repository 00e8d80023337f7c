package io.kvstore.bench.peers;

/** kv-core's cleanup contract on {@link XodusDao}. */
class XodusDaoCleanupTest extends PeerSuites.Cleanup {
    XodusDaoCleanupTest() {
        super(BenchEngine.XODUS);
    }
}
