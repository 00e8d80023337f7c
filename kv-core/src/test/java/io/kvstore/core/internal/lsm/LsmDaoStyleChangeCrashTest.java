package io.kvstore.core.internal.lsm;

import org.junit.jupiter.api.Tag;

import java.util.List;

/**
 * {@link LsmDaoCrashTest} alternating compaction styles: even rounds write under size-tiered compaction
 * with a trigger so high that tables pile up, odd rounds reopen the store under leveled compaction and
 * are killed while it moves those tables into levels.
 */
@Tag("slow")
class LsmDaoStyleChangeCrashTest extends LsmDaoCrashTest {
    @Override
    protected List<String> optionArguments(int round) {
        return round % 2 == 0 ? List.of("compactionStyle=SIZE_TIERED", "compactionTrigger=64")
                : List.of("compactionStyle=LEVELED");
    }
}
