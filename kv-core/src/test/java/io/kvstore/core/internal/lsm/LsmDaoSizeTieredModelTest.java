package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import org.junit.jupiter.api.Tag;

import java.io.IOException;

/** {@link LsmDaoModelTest} under size-tiered compaction. */
@Tag("slow")
class LsmDaoSizeTieredModelTest extends LsmDaoModelTest {
    @Override
    protected Dao open(DaoOptions options) throws IOException {
        return super.open(options.toBuilder().compactionStyle(CompactionStyle.SIZE_TIERED).build());
    }
}
