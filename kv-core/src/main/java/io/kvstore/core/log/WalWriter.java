package io.kvstore.core.log;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Appends entries to one write-ahead log file. Each record is
 * {@code [int32 payload length][int32 CRC32C of payload][payload]}, payload =
 * {@code [int64 timestamp][int32 key length][key][int32 value length, -1 for a tombstone][value]}
 * (big-endian; see docs/FORMAT.md).
 *
 * <p>{@link #append} hands the record to the operating system with write(2), so once it returns the
 * record survives a killed process. What the subclass adds is when the bytes reach the device:
 * one class per {@link io.kvstore.core.SyncPolicy}. Internal to the LSM engine.
 */
public abstract class WalWriter implements Closeable {
    static final int HEADER_BYTES = 8;
    static final int FIXED_PAYLOAD_BYTES = 16;

    private final Path file;
    final FileChannel channel;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer = ByteBuffer.allocateDirect(64 << 10);
    /** Bytes handed to the OS so far; written under the caller's lock, read by sync threads. */
    volatile long written;

    WalWriter(Path file) throws IOException {
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    /** Opens a new log file with the sync policy of {@code options}. */
    public static WalWriter create(Path file, DaoOptions options) throws IOException {
        switch (options.syncPolicy()) {
            case NONE:
                return new UnsyncedWalWriter(file);
            case GROUP_COMMIT:
                return new GroupCommitWalWriter(file, options.groupCommitIntervalMillis());
            case EVERY_WRITE:
                return new SyncEachWriteWalWriter(file);
            default:
                throw new IllegalArgumentException("unknown sync policy " + options.syncPolicy());
        }
    }

    public Path file() {
        return file;
    }

    /**
     * Writes one record to the OS and returns the log position after it. Callers serialize appends
     * (the store's write lock), so records are in the order the memtable saw them.
     */
    public final long append(Entry entry) throws IOException {
        byte[] key = entry.key();
        byte[] value = entry.value();
        int payload = FIXED_PAYLOAD_BYTES + key.length + (value == null ? 0 : value.length);
        int total = HEADER_BYTES + payload;
        if (buffer.capacity() < total) {
            buffer = total <= (4 << 20) ? ByteBuffer.allocateDirect(Integer.highestOneBit(total) << 1) : ByteBuffer.allocate(total);
        }
        ByteBuffer b = buffer.clear();
        b.putInt(payload).putInt(0);
        b.putLong(entry.timestamp()).putInt(key.length).put(key);
        if (value == null) {
            b.putInt(-1);
        } else {
            b.putInt(value.length).put(value);
        }
        crc.reset();
        crc.update(b.flip().position(HEADER_BYTES));
        b.putInt(4, (int) crc.getValue());
        b.position(0).limit(total);
        while (b.hasRemaining()) {
            channel.write(b);
        }
        long end = written + total;
        written = end;
        return end;
    }

    /** Returns once every record up to {@code position} is as durable as the policy promises. */
    public abstract void awaitDurable(long position) throws IOException;

    /** Forces everything written so far to the device. */
    public void sync() throws IOException {
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
