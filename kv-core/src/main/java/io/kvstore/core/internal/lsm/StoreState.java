package io.kvstore.core.internal.lsm;

import io.kvstore.core.WritesStoppedException;
import io.kvstore.core.internal.util.DiskErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Whether a store is open, and whether it still takes writes: shared by its write path and its
 * background work, with the {@link SpaceLedger} of that work. After any failed fsync (a full disk's
 * included) and any failed write of the log, a table or the manifest other than one that found the
 * disk full, the store stops taking writes until it is reopened: a partly written record must not be
 * followed by more, and after a failed fsync the kernel may have dropped pages it reported written,
 * so nothing written since can be promised durable; no fsync is tried again as if it could. Reads go
 * on, and reopening recovers every acknowledged write from what reached the device.
 */
final class StoreState {
    private static final Logger LOG = LoggerFactory.getLogger(StoreState.class);
    private final Path dir;
    private final SpaceLedger space;
    private volatile boolean closed;
    private volatile IOException failure;
    /** Why the last write found the disk full (the log could not grow), or null once a write got through. */
    private volatile String spaceRefusal;

    StoreState(Path dir, SpaceLedger space) {
        this.dir = dir;
        this.space = space;
    }

    /** The space promised to the store's flushes and compactions. */
    SpaceLedger space() {
        return space;
    }

    boolean isClosed() {
        return closed;
    }

    /** From now on nothing may be installed and every call fails. REQUIRES: the writers' lock. */
    void markClosed() {
        closed = true;
    }

    /** The failure that stopped writes, or null. */
    IOException failure() {
        return failure;
    }

    /**
     * Records {@code e} as the failure that stops writes (the first one stays the cause reported);
     * returns what the write that met it throws.
     */
    WritesStoppedException fail(IOException e) {
        if (failure == null) {
            synchronized (this) {
                if (failure == null) {
                    failure = e;
                    LOG.error("store {} stops taking writes until it is reopened: {}; reads go on", dir,
                            DiskErrors.describe(e));
                }
            }
        }
        return e instanceof WritesStoppedException stopped ? stopped : stopped(e);
    }

    private WritesStoppedException stopped(IOException cause) {
        return new WritesStoppedException("store " + dir + " stopped taking writes after a failure ("
                + DiskErrors.describe(cause) + "); reads go on; reopen it once the disk is checked", cause);
    }

    /** Why writes stopped, naming the operation and the file that failed, or null while they are taken. */
    String stopReason() {
        IOException cause = failure;
        return cause == null ? null : DiskErrors.describe(cause);
    }

    /**
     * Records that a write was refused because the log found the disk full; shown as the disk's refusal
     * until a write gets through ({@link #spaceTaken}). Nothing stops: the next write tries again.
     */
    void refuseForSpace(IOException refusal) {
        spaceRefusal = refusal.getMessage();
    }

    /** A write got through the log: the disk had room after all. Called on every write, so a read first. */
    void spaceTaken() {
        if (spaceRefusal != null) {
            spaceRefusal = null;
        }
    }

    /** Why the last write was refused for a full disk, or null. */
    String spaceRefusal() {
        return spaceRefusal;
    }

    void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("store " + dir + " is closed");
        }
    }

    void ensureWritable() throws IOException {
        ensureOpen();
        IOException cause = failure;
        if (cause != null) {
            throw stopped(cause);
        }
    }
}
