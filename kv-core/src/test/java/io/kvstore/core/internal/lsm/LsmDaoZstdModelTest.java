package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;
import org.junit.jupiter.api.Tag;

/** {@link LsmDaoModelTest} with tables in codec zstd. */
@Tag("slow")
class LsmDaoZstdModelTest extends LsmDaoModelTest {
    @Override
    protected Compression compression() {
        return Compression.ZSTD;
    }

    @Override
    protected int defaultOperations() {
        return 10_000;
    }
}
