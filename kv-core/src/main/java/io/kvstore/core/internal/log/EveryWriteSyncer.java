package io.kvstore.core.internal.log;

import java.io.IOException;

/**
 * {@link io.kvstore.core.SyncPolicy#EVERY_WRITE}: each writer forces the log before it returns;
 * writers that queue behind one force find their record already covered and skip their own.
 */
final class EveryWriteSyncer implements LogSyncer {
    private final WriteAheadLog log;
    private long durable;

    EveryWriteSyncer(WriteAheadLog log) {
        this.log = log;
    }

    @Override
    public synchronized void awaitDurable(long position) throws IOException {
        if (durable < position) {
            durable = Math.max(durable, log.forceCurrent());
        }
    }

    @Override
    public boolean forcesOnRotation() {
        return true;
    }

    @Override
    public synchronized void markDurable(long position) {
        durable = Math.max(durable, position);
    }

    @Override
    public void close() {
        // No resources.
    }
}
