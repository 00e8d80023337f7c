package io.kvstore.core.internal.log;

import io.kvstore.core.SyncPolicy;

import java.io.IOException;

/** When appended log bytes are forced to the device: one implementation per {@link SyncPolicy}. */
interface LogSyncer extends AutoCloseable {

    /** Returns once the log is durable up to {@code position} as the policy defines it. */
    void awaitDurable(long position) throws IOException;

    /** Whether a log file must be forced before it is closed at rotation. */
    boolean forcesOnRotation();

    /** Records that everything up to {@code position} is on the device (after a rotation's force). */
    void markDurable(long position);

    @Override
    void close();

    static LogSyncer forPolicy(SyncPolicy policy, long groupCommitIntervalMillis, WriteAheadLog log) {
        switch (policy) {
            case NONE:
                return new OsBufferedSyncer();
            case GROUP_COMMIT:
                return new GroupCommitSyncer(log, groupCommitIntervalMillis);
            case EVERY_WRITE:
                return new EveryWriteSyncer(log);
            default:
                throw new IllegalArgumentException("unknown sync policy " + policy);
        }
    }
}
