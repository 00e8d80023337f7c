package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;

/** {@link LsmDaoContractTest} with tables in codec none. */
class LsmDaoUncompressedContractTest extends LsmDaoContractTest {
    @Override
    protected Compression compression() {
        return Compression.NONE;
    }
}
