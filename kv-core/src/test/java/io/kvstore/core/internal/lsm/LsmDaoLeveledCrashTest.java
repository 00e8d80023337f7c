package io.kvstore.core.internal.lsm;

import org.junit.jupiter.api.Tag;

import java.util.List;

/** {@link LsmDaoCrashTest} with kills during leveled compactions of tiny zstd tables. */
@Tag("slow")
class LsmDaoLeveledCrashTest extends LsmDaoCrashTest {
    @Override
    protected List<String> optionArguments() {
        return List.of("compactionStyle=LEVELED", "compression=ZSTD");
    }
}
