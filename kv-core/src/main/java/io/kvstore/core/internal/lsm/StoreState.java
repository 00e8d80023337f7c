package io.kvstore.core.internal.lsm;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Whether a store is open, and whether it still takes writes: shared by its write path and its
 * background work, with the {@link SpaceLedger} of that work. After a failed log write, flush or manifest write the store refuses writes (a
 * partly written record must not be followed by more) and reads go on until it is reopened.
 */
final class StoreState {
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

    /** Records {@code e} as the failure that stops writes (the first one stays the cause reported). */
    void fail(IOException e) {
        if (failure == null) {
            failure = e;
        }
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
            throw new IOException("store " + dir + " refuses writes after a failure; reopen it", cause);
        }
    }
}
