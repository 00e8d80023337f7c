package io.kvstore.bench.peers;

/** kv-core's Dao contract on {@link XodusDao}. */
class XodusDaoContractTest extends PeerSuites.Contract {
    XodusDaoContractTest() {
        super(BenchEngine.XODUS);
    }
}
