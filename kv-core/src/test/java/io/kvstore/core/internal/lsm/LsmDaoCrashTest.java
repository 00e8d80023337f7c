package io.kvstore.core.internal.lsm;

import io.kvstore.core.DaoCrashTest;
import io.kvstore.core.Engine;

class LsmDaoCrashTest extends DaoCrashTest {
    @Override
    protected String engineName() {
        return Engine.LSM.id();
    }
}
