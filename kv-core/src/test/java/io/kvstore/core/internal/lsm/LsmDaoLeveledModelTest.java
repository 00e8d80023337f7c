package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import org.junit.jupiter.api.Tag;

import java.io.IOException;

/** {@link LsmDaoModelTest} under leveled compaction, with small tables so that levels form. */
@Tag("slow")
class LsmDaoLeveledModelTest extends LsmDaoModelTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return super.open(options.toBuilder().compactionStyle(CompactionStyle.LEVELED)
                .targetTableBytes(8 << 10).levelBaseBytes(32 << 10).build());
    }

    @Override
    protected int defaultOperations() {
        return 15_000;
    }
}
