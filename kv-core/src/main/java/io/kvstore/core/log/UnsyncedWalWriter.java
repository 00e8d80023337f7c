package io.kvstore.core.log;

import java.nio.file.Path;
import java.io.IOException;

/** {@link io.kvstore.core.SyncPolicy#NONE}: a record is acknowledged once the OS has it. */
final class UnsyncedWalWriter extends WalWriter {
    UnsyncedWalWriter(Path file) throws IOException {
        super(file);
    }

    @Override
    public void awaitDurable(long position) {
        // write(2) already happened in append: a killed process loses nothing; a machine crash may.
    }
}
