package io.kvstore.core.internal.lsm;

import io.kvstore.core.DiskSpace;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.Storage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses writes while the data directory's disk has less free space than the store's floor, before
 * anything of them reaches the log, so that a filling disk stops writes with a clear error instead of
 * a failed write or sync halfway through one. The free space is read again at most every
 * {@value #SAMPLE_MILLIS} ms, by a status read or by every {@value #WRITES_PER_CHECK}th write (every
 * write while writes are refused), so a store that refuses writes takes them again by itself once
 * space is back, and a write in the common case pays an increment and a volatile read. A disk that
 * fills past the floor anyway shows as a refusal too, the one the log met ({@link StoreState#spaceRefusal}),
 * until a write gets through again.
 * Thread-safe.
 */
final class FreeSpaceFloor {
    private static final Logger LOG = LoggerFactory.getLogger(FreeSpaceFloor.class);
    static final long SAMPLE_MILLIS = 100;
    /** Writes between two looks at the clock while writes are taken; a power of two. */
    static final int WRITES_PER_CHECK = 64;

    private final Storage storage;
    private final Path directory;
    private final long minFreeBytes;
    private final StoreState state;
    private final AtomicLong nextSample;
    private volatile DiskSpace last = DiskSpace.UNKNOWN;
    /** Counts writes to space the clock reads out; racy increments only skew when the next look comes. */
    private int writes;

    FreeSpaceFloor(Storage storage, Path directory, long minFreeBytes, StoreState state) {
        this.storage = storage;
        this.directory = directory;
        this.minFreeBytes = minFreeBytes;
        this.state = state;
        this.nextSample = new AtomicLong(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS));
        sample();
    }

    /** @throws InsufficientStorageException while the disk is below the floor */
    void check() throws InsufficientStorageException {
        if (minFreeBytes == 0) {
            return;
        }
        DiskSpace space = last;
        if (space.refusesWrites() || (++writes & (WRITES_PER_CHECK - 1)) == 0) {
            space = sampled();
        }
        String refusal = space.refusal();
        if (refusal != null) {
            throw new InsufficientStorageException(refusal);
        }
    }

    /**
     * The disk as last sampled, sampled again first if the last sample is older than the period, with
     * the log's refusal if the floor's is none, the space of the background work now, and whether
     * writes stopped.
     */
    DiskSpace current() {
        DiskSpace sampled = sampled();
        String refusal = sampled.refusesWrites() ? sampled.refusal() : state.spaceRefusal();
        SpaceLedger space = state.space();
        return new DiskSpace(sampled.freeBytes(), sampled.minFreeBytes(), refusal, space.reservedBytes(),
                space.compactionWaits(), state.stopReason());
    }

    private DiskSpace sampled() {
        long now = System.nanoTime();
        long due = nextSample.get();
        if (now - due >= 0 && nextSample.compareAndSet(due, now + TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS))) {
            sample();
        }
        return last;
    }

    private void sample() {
        long free;
        try {
            free = storage.usableSpace(directory);
        } catch (IOException e) {
            // Unknown is not full: the writes themselves will report a disk that fails.
            last = new DiskSpace(-1, minFreeBytes, null);
            return;
        }
        boolean below = minFreeBytes > 0 && free < minFreeBytes;
        boolean was = last.refusesWrites();
        last = new DiskSpace(free, minFreeBytes, below ? "the disk of " + directory + " has " + free
                + " bytes free, below the store's floor of " + minFreeBytes + " (minFreeBytes, --min-free-bytes): writes are"
                + " refused until space is freed; reads go on" : null);
        if (below && !was) {
            LOG.error("store {} refuses writes: {} bytes free on its disk, below its floor of {}", directory, free, minFreeBytes);
        } else if (!below && was) {
            LOG.warn("store {} takes writes again: {} bytes free on its disk", directory, free);
        }
    }
}
