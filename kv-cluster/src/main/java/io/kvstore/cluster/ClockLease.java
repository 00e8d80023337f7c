package io.kvstore.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The high-water mark of a {@link HybridClock}, kept in a file so that it survives a restart: the clock
 * issues and absorbs timestamps only below a bound made durable first (written to a temporary file,
 * fsynced, atomically renamed). A node restarted with its wall clock behind its own earlier timestamps
 * starts above the bound, so its new writes still supersede its old ones.
 *
 * <p>The file holds the bound as decimal text. Thread-safe.
 */
public final class ClockLease {
    /** The name of the lease file in a node's data directory. */
    public static final String FILE_NAME = "KVSTORE-HLC";

    private static final Logger LOG = LoggerFactory.getLogger(ClockLease.class);

    private final Path file;
    private volatile long bound;

    private ClockLease(Path file, long bound) {
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
        Files.createDirectories(directory);
        Path file = directory.resolve(FILE_NAME);
        long bound = Long.MIN_VALUE;
        if (Files.exists(file)) {
            String text = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
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
     * @throws UncheckedIOException if the file cannot be written: the clock must not pass the old bound
     */
    synchronized void extendTo(long newBound) {
        if (newBound <= bound) {
            return;
        }
        Path temp = file.resolveSibling(FILE_NAME + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(ByteBuffer.wrap(Long.toString(newBound).getBytes(StandardCharsets.US_ASCII)));
                channel.force(true);
            }
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot persist the clock lease " + file, e);
        }
        // Forcing the directory makes the rename durable, not only the new file's contents (POSIX).
        try (FileChannel directory = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            directory.force(true);
        } catch (IOException e) {
            LOG.debug("cannot fsync directory {}", file.getParent(), e);
        }
        bound = newBound;
    }

    @Override
    public String toString() {
        return "ClockLease{" + file + ", bound=" + bound + '}';
    }
}
