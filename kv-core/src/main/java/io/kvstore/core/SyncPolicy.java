package io.kvstore.core;

/** When the write-ahead log forces its bytes to the storage device. */
public enum SyncPolicy {
    /**
     * Every write is handed to the operating system before it is acknowledged, never forced to the
     * device: survives a killed process (kill -9), not a machine crash. The default.
     */
    NONE,
    /**
     * Writes are acknowledged once a background fsync that covers them completes; concurrent
     * writers share one fsync every {@link DaoOptions#groupCommitIntervalMillis()} ms.
     */
    GROUP_COMMIT,
    /** Each write is fsynced before it is acknowledged: the safest and slowest. */
    EVERY_WRITE
}
