package io.kvstore.core.internal.util;

import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the write-back of a file being written as it grows, a step at a time, as RocksDB's
 * {@code bytes_per_sync} does: every {@link #STEP_BYTES} it hands the bytes written since the last step
 * to the device ({@code sync_file_range(SYNC_FILE_RANGE_WRITE)}) without waiting for them. Without it a
 * table's pages stay dirty until the fsync that completes it, which then queues the whole table on the
 * device at once, ahead of the log's fsyncs, and the kernel's flusher threads, at normal priority, do
 * the write-back a low-priority compaction left. Durability is still the final fsync's: this only
 * starts write-back early.
 *
 * <p>Linux with JNA (an optional dependency of kv-core) only; elsewhere, or if the kernel refuses, it
 * does nothing and the first such file logs why. REQUIRES: one writing thread.
 */
public final class FileWriteback implements Closeable {
    /** Bytes between two steps, as RocksDB's usual {@code bytes_per_sync}. */
    public static final long STEP_BYTES = 1 << 20;
    private static final Logger LOG = LoggerFactory.getLogger(FileWriteback.class);
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int SYNC_FILE_RANGE_WRITE = 2;
    private static final long PAGE_MASK = ~4095L;
    private static volatile boolean warned;

    private final Path path;
    /** A descriptor of the file for sync_file_range (which takes any descriptor of it); -1 when off. */
    private int fd;
    private long startedTo;
    private long steps;

    private FileWriteback(Path path, int fd) {
        this.path = path;
        this.fd = fd;
    }

    /** Follows the file at {@code path}, which exists; never fails (a writeback that is off does nothing). */
    public static FileWriteback open(Path path) {
        try {
            if (!System.getProperty("os.name", "").startsWith("Linux") || !Platform.is64Bit()) {
                warnOnce("not 64-bit Linux");
                return new FileWriteback(path, -1);
            }
            byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
            int fd = LibC.open(Arrays.copyOf(name, name.length + 1), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                warnOnce("open(" + path + ") failed with errno " + Native.getLastError());
            }
            return new FileWriteback(path, fd);
        } catch (LinkageError e) { // JNA missing, or its native part cannot load here
            warnOnce(e.toString());
            return new FileWriteback(path, -1);
        }
    }

    /**
     * Tells that the file's first {@code length} bytes are written (handed to the kernel); once they are
     * a step past the last start, starts the write-back of the whole pages written since.
     */
    public void written(long length) {
        long upTo = length & PAGE_MASK;
        if (fd < 0 || upTo - startedTo < STEP_BYTES) {
            return;
        }
        if (LibC.sync_file_range(fd, startedTo, upTo - startedTo, SYNC_FILE_RANGE_WRITE) != 0) {
            warnOnce("sync_file_range on " + path + " failed with errno " + Native.getLastError());
            close();
            return;
        }
        startedTo = upTo;
        steps++;
    }

    /** How many times write-back was started: for tests. */
    public long steps() {
        return steps;
    }

    /** Whether this file's write-back is followed (false where the platform or the kernel does not allow it). */
    public boolean isOn() {
        return fd >= 0;
    }

    @Override
    public void close() {
        if (fd >= 0) {
            LibC.close(fd);
            fd = -1;
        }
    }

    private static void warnOnce(String reason) {
        if (!warned) {
            warned = true;
            LOG.info("Tables are written out by the kernel when it chooses and by each table's fsync: {}", reason);
        }
    }
}
