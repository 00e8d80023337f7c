package io.kvstore.core.log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@link io.kvstore.core.SyncPolicy#EVERY_WRITE}: a record is acknowledged once an fsync that started
 * after it was written completes. Writers that arrive while an fsync runs share the next one.
 */
final class SyncEachWriteWalWriter extends WalWriter {
    private final Object syncLock = new Object();
    private long synced;

    SyncEachWriteWalWriter(Path file) throws IOException {
        super(file);
    }

    @Override
    public void awaitDurable(long position) throws IOException {
        synchronized (syncLock) {
            if (synced >= position) {
                return; // another writer's fsync covered this record
            }
            long covered = written;
            channel.force(false);
            synced = covered;
        }
    }
}
