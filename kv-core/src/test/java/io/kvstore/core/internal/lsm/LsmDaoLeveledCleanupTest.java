package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

/** {@link LsmDaoCleanupTest} under leveled compaction, with small tables so that levels form, rate limited. */
class LsmDaoLeveledCleanupTest extends LsmDaoCleanupTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return super.open(options.toBuilder().compactionStyle(CompactionStyle.LEVELED)
                .targetTableBytes(16 << 10).levelBaseBytes(64 << 10).compactionBytesPerSecond(8 << 20).build());
    }
}
