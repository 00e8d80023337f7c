package io.kvstore.core.internal.log;

/**
 * {@link io.kvstore.core.SyncPolicy#NONE}: a record is durable once write(2) handed it to the OS,
 * which the appender already did; survives a killed process, not a machine crash.
 */
final class OsBufferedSyncer implements LogSyncer {
    @Override
    public void awaitDurable(long position) {
        // write(2) has returned: nothing more to wait for under this policy.
    }

    @Override
    public boolean forcesOnRotation() {
        return false;
    }

    @Override
    public void markDurable(long position) {
        // Nothing tracks durability under this policy.
    }

    @Override
    public void close() {
        // No resources.
    }
}
