package io.kvstore.core.internal.lsm;

import io.kvstore.core.Compression;
import org.junit.jupiter.api.Tag;

/** {@link LsmDaoModelTest} with tables in codec none. */
@Tag("slow")
class LsmDaoUncompressedModelTest extends LsmDaoModelTest {
    @Override
    protected Compression compression() {
        return Compression.NONE;
    }

    @Override
    protected int defaultOperations() {
        return 10_000;
    }
}
