package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoContractTest;
import io.kvstore.core.DaoOptions;
import java.io.IOException;
import org.junit.jupiter.api.Tag;

@Tag("slow")
class LsmDaoContractTest extends DaoContractTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return LsmDao.open(options.toBuilder().compression(compression()).build());
    }

    /** The codec of the tables the suite writes. */
    protected Compression compression() {
        return DaoOptions.DEFAULT_COMPRESSION;
    }
}
