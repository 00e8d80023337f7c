package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;

import java.io.IOException;

/** {@link LsmDaoContractTest} under leveled compaction, with small tables so that levels form. */
class LsmDaoLeveledContractTest extends LsmDaoContractTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return super.open(options.toBuilder().compactionStyle(CompactionStyle.LEVELED)
                .targetTableBytes(16 << 10).levelBaseBytes(64 << 10).build());
    }
}
