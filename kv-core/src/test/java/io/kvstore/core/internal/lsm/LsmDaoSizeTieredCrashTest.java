package io.kvstore.core.internal.lsm;

import org.junit.jupiter.api.Tag;

import java.util.List;

/** {@link LsmDaoCrashTest} with kills during size-tiered compactions. */
@Tag("slow")
class LsmDaoSizeTieredCrashTest extends LsmDaoCrashTest {
    @Override
    protected List<String> optionArguments() {
        return List.of("compactionStyle=SIZE_TIERED");
    }
}
