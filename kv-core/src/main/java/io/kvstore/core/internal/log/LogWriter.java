package io.kvstore.core.internal.log;

import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.Storage;
import io.kvstore.core.internal.util.DiskErrors;

import java.io.Closeable;
import java.io.IOException;
import java.io.SyncFailedException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.CRC32C;

/**
 * Appends records to one log file. A record is in the file (the page cache) when {@link #append}
 * returns, so it survives the death of the process. Two ways to get it there:
 * <ul>
 *   <li>mapped: copied into a shared memory mapping of the file, no system call per record. The file
 *       is extended ahead in windows of {@link #WINDOW_BYTES}, written as zeros with write(2) before
 *       they are mapped: that write reserves the window's blocks, so that a full disk fails it with an
 *       {@link InsufficientStorageException} rather than a later store into the mapping with a SIGBUS
 *       (an {@link InternalError} that would leave a record half written); {@link #close} cuts the
 *       zeros left past the last record, and after a crash recovery reads them as the end of the log. Used where nothing forces the log
 *       (sync policy none): there a write is otherwise a few memory copies, so a system call per
 *       record would be a large share of its CPU, while one per window is not. The zeros of the next
 *       window are written ahead on the {@code zeroer} executor, not under the store's write lock on
 *       the event loop that happens to cross the edge.</li>
 *   <li>written: one positional write(2) per record. Used under the syncing policies, whose fsyncs
 *       then cover exactly what write(2) handed over, and for records larger than a window.</li>
 * </ul>
 * A full disk met while the file grows (its creation, a window's zeros, a record's write(2)) leaves
 * the file as it was before the record, so the append fails with an {@link InsufficientStorageException}
 * and a later one may succeed once space returns. REQUIRES: external synchronization of {@link #append}.
 */
final class LogWriter implements Closeable {
    /** Bytes mapped at a time: a system call per ~8,000 records of 130 bytes, and 1 MiB of zeros at most to cut. */
    static final int WINDOW_BYTES = 1 << 20;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 << 10).asReadOnlyBuffer();

    private final Storage storage;
    private final Path path;
    private final FileChannel channel;
    private final boolean mapped;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer = ByteBuffer.allocateDirect(64 << 10).order(ByteOrder.LITTLE_ENDIAN);
    /** File offset where the next record goes. */
    private long position;
    /** The mapped window, covering {@code [windowStart, windowStart + WINDOW_BYTES)}; null before the first. */
    private MappedByteBuffer window;
    private long windowStart;
    /**
     * The file's length once windows extended it: everything past the records up to here is zeros.
     * Never below {@link #position}, so that zeros written ahead never land on a record. Written by
     * the appending thread, or by one zeroing task while {@link #zeroing} is not done.
     */
    private volatile long zeroedEnd;
    private final Executor zeroer;
    /** The zeros being written ahead, if any; the appending thread waits for it before writing itself. */
    private CompletableFuture<Void> zeroing = CompletableFuture.completedFuture(null);

    /**
     * A log file on the real file system, appended in the calling thread only (zeros of a mapped log
     * included).
     */
    LogWriter(Path path, boolean mapped) throws IOException {
        this(path, mapped, Runnable::run);
    }

    /** A log file on the real file system; see {@link #LogWriter(Storage, Path, boolean, Executor)}. */
    LogWriter(Path path, boolean mapped, Executor zeroer) throws IOException {
        this(Storage.local(), path, mapped, zeroer);
    }

    /** {@code zeroer}: where a mapped log writes the zeros of its next window, ahead of need. */
    LogWriter(Storage storage, Path path, boolean mapped, Executor zeroer) throws IOException {
        this.storage = storage;
        this.path = path;
        this.mapped = mapped;
        this.zeroer = zeroer;
        try {
            this.channel = storage.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw noSpaceOr(e, "a new log file " + path);
        }
        try {
            ByteBuffer header = ByteBuffer.allocate(LogFormat.FILE_HEADER).order(ByteOrder.LITTLE_ENDIAN);
            header.putInt(LogFormat.MAGIC).putInt(LogFormat.VERSION).flip();
            writeAt(header, 0);
            position = LogFormat.FILE_HEADER;
            zeroedEnd = position;
            if (!mapped) {
                // The policies that fsync records: an fsync of the file covers its contents, not its name.
                try {
                    storage.syncDirectory(path.toAbsolutePath().getParent());
                } catch (IOException e) {
                    throw DiskErrors.fsyncFailed(path.toAbsolutePath().getParent(), e);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Made again under the same name by the next attempt: leave no file behind.
            try {
                channel.close();
                storage.delete(path);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof SyncFailedException) {
                throw e; // names its directory already
            }
            if (e instanceof IOException io) {
                throw noSpaceOr(DiskErrors.naming("creation", path, io), "a new log file " + path);
            }
            throw e;
        }
    }

    Path path() {
        return path;
    }

    /**
     * Writes the zeros of the first two windows and maps the first, so that neither the first record
     * nor the first window switch does: for a writer made ahead of its turn (see
     * {@link WriteAheadLog#prepare}), before any other thread uses it.
     */
    void prepareFirstWindow() throws IOException {
        if (mapped && window == null) {
            zeroFill(position + 2L * WINDOW_BYTES);
            window = channel.map(FileChannel.MapMode.READ_WRITE, position, WINDOW_BYTES);
            windowStart = position;
        }
    }

    /** Writes one record and returns its size in bytes. */
    int append(Entry entry) throws IOException {
        byte[] key = entry.key();
        byte[] value = entry.value();
        boolean expires = entry.expires();
        long payload = (long) LogFormat.PAYLOAD_HEADER + key.length + (value == null ? 0 : value.length)
                + (expires ? 8 : 0);
        if (payload > LogFormat.MAX_PAYLOAD) {
            throw new IllegalArgumentException("entry too large for the log: " + payload + " bytes");
        }
        int recordSize = LogFormat.RECORD_HEADER + (int) payload;
        if (buffer.capacity() < recordSize) {
            buffer = ByteBuffer.allocateDirect(Math.max(recordSize, buffer.capacity() * 2)).order(ByteOrder.LITTLE_ENDIAN);
        }
        ByteBuffer b = buffer;
        b.clear();
        b.putInt(0);
        b.putInt((int) payload);
        b.put(value == null ? LogFormat.KIND_TOMBSTONE : expires ? LogFormat.KIND_EXPIRING_VALUE : LogFormat.KIND_VALUE);
        b.putLong(entry.timestamp());
        b.putInt(key.length);
        b.put(key);
        if (expires) {
            b.putLong(entry.expiresAtMillis());
        }
        if (value != null) {
            b.put(value);
        }
        b.flip();
        crc.reset();
        b.position(4);
        crc.update(b);
        b.putInt(0, (int) crc.getValue());
        b.position(0);
        if (mapped && recordSize <= WINDOW_BYTES) {
            if (window == null || position + recordSize > windowStart + WINDOW_BYTES) {
                if (zeroedEnd < position + WINDOW_BYTES) { // the zeros ahead are late, or there were none
                    awaitZeroing();
                    zeroFill(position + WINDOW_BYTES);
                }
                window = channel.map(FileChannel.MapMode.READ_WRITE, position, WINDOW_BYTES);
                windowStart = position;
                zeroAhead(position + 2L * WINDOW_BYTES);
            }
            window.put((int) (position - windowStart), b, 0, recordSize);
        } else {
            awaitZeroing(); // its zeros may cover where this record goes
            writeRecordAt(b, position);
            if (mapped) {
                zeroedEnd = Math.max(zeroedEnd, position + recordSize);
            }
        }
        position += recordSize;
        return recordSize;
    }

    /** Forces the records to the device; a failure names the file and is never taken for a full disk. */
    void force() throws IOException {
        try {
            if (window != null) {
                window.force();
            }
            channel.force(false);
        } catch (IOException e) {
            throw DiskErrors.fsyncFailed(path, e);
        } catch (UncheckedIOException e) {
            throw DiskErrors.fsyncFailed(path, e.getCause());
        }
    }

    /** Closes the file, cutting the zeros a mapped window left past the last record. */
    @Override
    public void close() throws IOException {
        try {
            awaitZeroing();
            if (window != null && channel.size() > position) {
                channel.truncate(position);
            }
        } finally {
            channel.close();
        }
    }

    /** Starts writing zeros up to {@code end} on the zeroer, unless some are still being written. */
    private void zeroAhead(long end) {
        if (zeroing.isDone() && zeroedEnd < end) {
            try {
                zeroing = CompletableFuture.runAsync(() -> {
                    try {
                        zeroFill(end);
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                }, zeroer);
            } catch (RejectedExecutionException e) {
                // shutting down: the next window's zeros are written in line, as without a zeroer
            }
        }
    }

    /** Waits for the zeros being written ahead; a failure is left for the caller's own write to meet. */
    private void awaitZeroing() {
        zeroing.handle((ignored, failure) -> null).join();
    }

    /**
     * Extends the file with zeros written through write(2), which reserves their blocks, up to
     * {@code end}; a full disk fails it with an {@link InsufficientStorageException}, and the zeros
     * written before it are written again by the next attempt.
     */
    private void zeroFill(long end) throws IOException {
        long from = zeroedEnd;
        try {
            while (from < end) {
                ByteBuffer zeros = ZEROS.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), end - from));
                writeAt(zeros, from);
                from += zeros.limit();
            }
        } catch (IOException e) {
            throw noSpaceOr(DiskErrors.naming("write", path, e), (end - zeroedEnd) + " bytes of the log's next window in " + path);
        }
        zeroedEnd = Math.max(zeroedEnd, end);
    }

    /**
     * Writes one record through write(2). On a full disk the part written is cut off again, so that the
     * file ends where it did and the next record goes where this one would have.
     */
    private void writeRecordAt(ByteBuffer record, long at) throws IOException {
        try {
            writeAt(record, at);
        } catch (IOException failure) {
            IOException e = DiskErrors.naming("write", path, failure);
            if (!DiskErrors.isNoSpace(e)) {
                throw e;
            }
            try {
                if (channel.size() > Math.max(at, zeroedEnd)) {
                    channel.truncate(Math.max(at, zeroedEnd));
                }
            } catch (IOException cut) {
                e.addSuppressed(cut);
                throw e; // what is past the records is unknown: not a full disk the store can wait out
            }
            throw noSpaceOr(e, "a record of " + record.limit() + " bytes in " + path);
        }
    }

    /** {@code e}, or if it is a full disk an {@link InsufficientStorageException} saying what found no room. */
    private static IOException noSpaceOr(IOException e, String what) {
        if (e instanceof InsufficientStorageException || !DiskErrors.isNoSpace(e)) {
            return e;
        }
        return new InsufficientStorageException("the disk has no room for " + what + " (" + e.getMessage()
                + "): writes are refused until space is freed; reads go on", e);
    }

    private void writeAt(ByteBuffer b, long at) throws IOException {
        long offset = at;
        while (b.hasRemaining()) {
            offset += channel.write(b, offset);
        }
    }
}
