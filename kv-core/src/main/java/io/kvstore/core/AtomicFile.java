package io.kvstore.core;

import io.kvstore.core.internal.util.DiskErrors;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * A small file that is only ever replaced whole, so that a crash or a failed write at any step leaves
 * either its old contents or its new ones, never a mix: the new contents go to a temporary file next to
 * it ({@code NAME.tmp}), which is fsynced, renamed over the file, and made durable by fsyncing the
 * directory. The store's manifest and clock lease and a cluster node's map, clock lease and stream
 * checkpoints are kept this way. REQUIRES: one writer at a time.
 */
public final class AtomicFile {
    private final Storage storage;
    private final Path file;
    private final Path temporary;

    public AtomicFile(Storage storage, Path file) {
        this.storage = Objects.requireNonNull(storage, "storage");
        this.file = Objects.requireNonNull(file, "file");
        this.temporary = file.resolveSibling(file.getFileName() + ".tmp");
    }

    /** The file. */
    public Path path() {
        return file;
    }

    /** The temporary file a replacement is written to first. */
    public Path temporary() {
        return temporary;
    }

    /** The file's contents, or {@code null} if it does not exist. */
    public byte[] read() throws IOException {
        if (!storage.exists(file)) {
            return null;
        }
        try (FileChannel channel = storage.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE - 8) {
                throw new IOException(file + " is too large to read whole: " + size + " bytes");
            }
            ByteBuffer contents = ByteBuffer.allocate((int) size);
            while (contents.hasRemaining()) {
                if (channel.read(contents) < 0) {
                    throw new IOException(file + " shrank while being read");
                }
            }
            return contents.array();
        }
    }

    /**
     * Replaces the file's contents with {@code contents}, durably before it returns. If it throws, the
     * file holds its old contents or, if only the final directory fsync failed, its new ones.
     */
    public void replace(byte[] contents) throws IOException {
        try (FileChannel channel = storage.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(contents);
            try {
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            } catch (IOException e) {
                throw DiskErrors.naming("write", temporary, e);
            }
            try {
                channel.force(true);
            } catch (IOException e) {
                throw DiskErrors.fsyncFailed(temporary, e);
            }
        }
        try {
            storage.rename(temporary, file);
        } catch (IOException e) {
            throw DiskErrors.naming("rename", temporary, e);
        }
        Path directory = file.toAbsolutePath().getParent();
        try {
            storage.syncDirectory(directory);
        } catch (IOException e) {
            throw DiskErrors.fsyncFailed(directory, e);
        }
    }

    @Override
    public String toString() {
        return file.toString();
    }
}
