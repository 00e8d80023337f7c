package io.kvstore.cluster;

import io.kvstore.core.AtomicFile;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.Storage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The high-water mark of a {@link HybridClock}, kept in a file so that it survives a restart: the clock
 * issues and absorbs timestamps only below a bound made durable first (an {@link AtomicFile}). A node
 * restarted with its wall clock behind its own earlier timestamps starts above the bound, so its new
 * writes still supersede its old ones.
 *
 * <p>The file holds the bound as decimal text. Thread-safe.
 */
public final class ClockLease {
    /** The name of the lease file in a node's data directory. */
    public static final String FILE_NAME = "KVSTORE-HLC";

    private final AtomicFile file;
    private volatile long bound;

    private ClockLease(AtomicFile file, long bound) {
        this.file = file;
        this.bound = bound;
    }

    /**
     * Opens the lease of {@code directory} (created if missing): its bound is the one persisted by the
     * last run, or {@link Long#MIN_VALUE} for a new directory.
     *
     * @throws IOException if the directory cannot be created or the file is unreadable or corrupt
     */
    public static ClockLease open(Path directory) throws IOException {
        return open(Storage.local(), directory);
    }

    /** {@link #open(Path)} in {@code storage}. */
    public static ClockLease open(Storage storage, Path directory) throws IOException {
        storage.createDirectories(directory);
        AtomicFile file = new AtomicFile(storage, directory.resolve(FILE_NAME));
        long bound = Long.MIN_VALUE;
        byte[] saved = file.read();
        if (saved != null) {
            String text = new String(saved, StandardCharsets.US_ASCII).trim();
            try {
                bound = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IOException("corrupt clock lease " + file + ": '" + text + "' is not a timestamp", e);
            }
        }
        return new ClockLease(file, bound);
    }

    /** Every timestamp issued or observed before is below this bound. */
    public long bound() {
        return bound;
    }

    /**
     * Makes {@code newBound} durable before returning, unless a bound at least as high already is.
     *
     * @throws UncheckedIOException if the file cannot be written: the clock must not pass the old bound.
     *                              Its cause is an {@link InsufficientStorageException} if the disk is
     *                              full, which passes once space is freed: the next extension tries again.
     */
    synchronized void extendTo(long newBound) {
        if (newBound <= bound) {
            return;
        }
        try {
            file.replace(Long.toString(newBound).getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            String refusal = "writes are refused until the clock lease " + file + " can be extended";
            IOException full = InsufficientStorageException.ifNoSpace(e, refusal);
            throw new UncheckedIOException(full != e ? full : new IOException(refusal + ": " + e.getMessage(), e));
        }
        bound = newBound;
    }

    @Override
    public String toString() {
        return "ClockLease{" + file + ", bound=" + bound + '}';
    }
}
