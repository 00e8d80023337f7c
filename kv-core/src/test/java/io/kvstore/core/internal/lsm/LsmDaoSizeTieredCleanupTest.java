package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

/** {@link LsmDaoCleanupTest} under size-tiered compaction. */
class LsmDaoSizeTieredCleanupTest extends LsmDaoCleanupTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return super.open(options.toBuilder().compactionStyle(CompactionStyle.SIZE_TIERED).build());
    }
}
