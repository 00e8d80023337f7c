package io.kvstore.core.rocksdb;

import io.kvstore.core.DaoCrashTest;
import io.kvstore.core.Engine;

class RocksDbDaoCrashTest extends DaoCrashTest {
    @Override
    protected String engineName() {
        return Engine.ROCKSDB.id();
    }
}
