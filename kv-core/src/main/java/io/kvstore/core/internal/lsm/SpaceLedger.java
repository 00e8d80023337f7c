package io.kvstore.core.internal.lsm;

import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.Storage;
import io.kvstore.core.internal.util.DiskErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The disk space promised to the flushes and compactions running now, as RocksDB's
 * {@code SstFileManager} keeps it, so that a compaction never fills the disk under the log and the
 * flushes: before it starts, a compaction reserves the bytes of its inputs (its output is at most about
 * as large) against the free space less the store's floor and what others reserved, and waits if they
 * do not fit. A flush reserves its memtable's bytes but never waits: it is what frees the log (its
 * memtable's log is deleted once it is installed), and writers wait for it. A waiting compaction is
 * logged once, shown in the store's {@link io.kvstore.core.DiskSpace}, and tried again every
 * {@value #RETRY_MILLIS} ms and after every flush, until space returns. Thread-safe.
 */
final class SpaceLedger {
    private static final Logger LOG = LoggerFactory.getLogger(SpaceLedger.class);
    /** How often background work that found the disk full tries again. */
    static final long RETRY_MILLIS = 1000;

    private final Storage storage;
    private final Path dir;
    private final long minFreeBytes;
    /** Bytes promised to flushes and compactions running now. GUARDED_BY this. */
    private long reserved;
    /** Why compaction waits for space, or null while it does not. */
    private volatile String compactionWaiting;

    SpaceLedger(Storage storage, Path dir, long minFreeBytes) {
        this.storage = storage;
        this.dir = dir;
        this.minFreeBytes = minFreeBytes;
    }

    /** Bytes promised to the flushes and compactions running now. */
    synchronized long reservedBytes() {
        return reserved;
    }

    /** Whether a compaction waits for space; {@link #compactionWaiting()} says why. */
    boolean compactionWaits() {
        return compactionWaiting != null;
    }

    /** Why compaction waits for space, or null. */
    String compactionWaiting() {
        return compactionWaiting;
    }

    /** Reserves {@code bytes} for a flush, whatever the free space (see the class comment). */
    Reservation reserveForFlush(long bytes) {
        synchronized (this) {
            reserved += bytes;
        }
        return new Reservation(bytes);
    }

    /**
     * Reserves {@code bytes} for a compaction if the disk's free space, less the floor and what is
     * reserved already, holds them; else fails with an {@link InsufficientStorageException} saying so.
     * A disk whose free space cannot be read is taken to have room: the writes will tell.
     */
    Reservation reserveForCompaction(long bytes, String what) throws InsufficientStorageException {
        long free;
        try {
            free = storage.usableSpace(dir);
        } catch (IOException e) {
            free = Long.MAX_VALUE;
        }
        synchronized (this) {
            long room = free - minFreeBytes - reserved;
            if (room < bytes) {
                throw new InsufficientStorageException("the " + what + " of " + dir + " waits for space: it needs up to "
                        + bytes + " bytes, and the disk has " + free + " free, less the floor of " + minFreeBytes
                        + " and " + reserved + " reserved by other work");
            }
            reserved += bytes;
        }
        return new Reservation(bytes);
    }

    /**
     * {@code failure} as a full disk if it is one (an {@link InsufficientStorageException} naming
     * {@code what}), else itself.
     */
    static IOException noSpaceOr(IOException failure, String what) {
        if (failure instanceof InsufficientStorageException || !DiskErrors.isNoSpace(failure)) {
            return failure;
        }
        return new InsufficientStorageException("the " + what + " found the disk full (" + failure.getMessage()
                + "); it is tried again once space is freed", failure);
    }

    /** Notes that compaction waits for space ({@code why}); logged when it starts waiting. */
    void compactionWaits(InsufficientStorageException why) {
        if (compactionWaiting == null) {
            LOG.warn("Compaction waits for space: {}", why.getMessage());
        }
        compactionWaiting = why.getMessage();
    }

    /** Notes that compaction runs again (or has nothing to do); logged if it was waiting. */
    void compactionRuns() {
        if (compactionWaiting != null) {
            compactionWaiting = null;
            LOG.info("Compaction of {} no longer waits for space", dir);
        }
    }

    /** Bytes promised to one flush or compaction, given back by {@link #close}. */
    final class Reservation implements AutoCloseable {
        private long bytes;

        private Reservation(long bytes) {
            this.bytes = bytes;
        }

        @Override
        public void close() {
            synchronized (SpaceLedger.this) {
                reserved -= bytes;
                bytes = 0;
            }
        }
    }
}
