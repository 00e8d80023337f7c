package io.kvstore.core.log;

import io.kvstore.core.Entry;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Appends records to one log file, one write(2) per record, so a record handed to the OS survives
 * the death of the process. REQUIRES: external synchronization of {@link #append}.
 */
final class LogWriter implements Closeable {
    private final Path path;
    private final FileChannel channel;
    private final CRC32C crc = new CRC32C();
    private ByteBuffer buffer = ByteBuffer.allocateDirect(64 << 10).order(ByteOrder.LITTLE_ENDIAN);

    LogWriter(Path path) throws IOException {
        this.path = path;
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ByteBuffer header = ByteBuffer.allocate(LogFormat.FILE_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(LogFormat.MAGIC).putInt(LogFormat.VERSION).flip();
        writeFully(header);
    }

    Path path() {
        return path;
    }

    /** Writes one record and returns its size in bytes. */
    int append(Entry entry) throws IOException {
        byte[] key = entry.key();
        byte[] value = entry.value();
        long payload = (long) LogFormat.PAYLOAD_HEADER + key.length + (value == null ? 0 : value.length);
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
        b.put(value == null ? LogFormat.KIND_TOMBSTONE : LogFormat.KIND_VALUE);
        b.putLong(entry.timestamp());
        b.putInt(key.length);
        b.put(key);
        if (value != null) {
            b.put(value);
        }
        b.flip();
        crc.reset();
        b.position(4);
        crc.update(b);
        b.putInt(0, (int) crc.getValue());
        b.position(0);
        writeFully(b);
        return recordSize;
    }

    void force() throws IOException {
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    private void writeFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }
}
