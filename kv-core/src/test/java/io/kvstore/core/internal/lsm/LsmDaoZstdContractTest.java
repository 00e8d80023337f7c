package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;

/** {@link LsmDaoContractTest} with tables in codec zstd. */
class LsmDaoZstdContractTest extends LsmDaoContractTest {
    @Override
    protected Compression compression() {
        return Compression.ZSTD;
    }
}
