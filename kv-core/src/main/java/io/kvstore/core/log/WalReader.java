package io.kvstore.core.log;

import io.kvstore.core.CorruptionException;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays a write-ahead log written by {@link WalWriter}. A damaged last record (a write the crash
 * interrupted: short, or failing its checksum with nothing valid after it) is a torn tail: it is cut
 * off and the log opens. A damaged record followed by more data is corruption: it is reported with
 * the file and offset, never skipped silently. Internal to the LSM engine.
 */
public final class WalReader {
    private static final Logger LOG = LoggerFactory.getLogger(WalReader.class);

    private WalReader() {
    }

    /**
     * Feeds every intact record to {@code sink} in log order, truncates a torn tail, and returns the
     * number of records replayed.
     *
     * @throws CorruptionException if a record before the tail is damaged
     */
    public static long replay(Path file, Consumer<Entry> sink) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            ByteBuffer header = ByteBuffer.allocate(WalWriter.HEADER_BYTES);
            CRC32C crc = new CRC32C();
            long offset = 0;
            long records = 0;
            while (offset < size) {
                // A damaged record is a torn tail when it is the last thing in the file: its header is
                // cut short, it claims bytes past the end, or only zeros (allocated, never written
                // pages) follow it. Anything else is corruption.
                long available = size - offset - WalWriter.HEADER_BYTES;
                String damage = null;
                boolean torn = false;
                ByteBuffer payload = null;
                if (available < 0) {
                    damage = "short record header";
                    torn = true;
                } else {
                    readFully(channel, header.clear(), offset);
                    int length = header.getInt(0);
                    if (length > available) {
                        damage = "record length " + length + " past the end of the file";
                        torn = true;
                    } else if (length < WalWriter.FIXED_PAYLOAD_BYTES) {
                        damage = "bad record length " + length;
                        torn = allZeros(channel, offset, size);
                    } else {
                        payload = ByteBuffer.allocate(length);
                        readFully(channel, payload, offset + WalWriter.HEADER_BYTES);
                        crc.reset();
                        crc.update(payload.flip());
                        if ((int) crc.getValue() != header.getInt(4)) {
                            damage = "checksum mismatch";
                            torn = allZeros(channel, offset + WalWriter.HEADER_BYTES + length, size);
                        }
                    }
                }
                if (damage != null) {
                    if (!torn) {
                        throw new CorruptionException(file, offset, damage + ", with more data after it");
                    }
                    LOG.warn("{}: cutting a torn tail of {} bytes at offset {} ({})", file, size - offset, offset, damage);
                    channel.truncate(offset);
                    channel.force(false);
                    return records;
                }
                sink.accept(decode(file, offset, payload.rewind()));
                records++;
                offset += WalWriter.HEADER_BYTES + payload.capacity();
            }
            return records;
        }
    }

    private static boolean allZeros(FileChannel channel, long from, long size) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(64 << 10);
        for (long pos = from; pos < size; ) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), size - pos));
            readFully(channel, chunk, pos);
            for (int i = 0; i < chunk.limit(); i++) {
                if (chunk.get(i) != 0) {
                    return false;
                }
            }
            pos += chunk.limit();
        }
        return true;
    }

    private static Entry decode(Path file, long offset, ByteBuffer p) throws CorruptionException {
        long timestamp = p.getLong();
        int keyLength = p.getInt();
        if (keyLength < 0 || keyLength > p.remaining() - 4) {
            throw new CorruptionException(file, offset, "bad key length " + keyLength);
        }
        byte[] key = new byte[keyLength];
        p.get(key);
        int valueLength = p.getInt();
        if (valueLength == -1 && !p.hasRemaining()) {
            return Entry.tombstone(key, timestamp);
        }
        if (valueLength != p.remaining()) {
            throw new CorruptionException(file, offset, "bad value length " + valueLength);
        }
        byte[] value = new byte[valueLength];
        p.get(value);
        return Entry.value(key, value, timestamp);
    }

    private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long pos = position;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, pos);
            if (n < 0) {
                throw new IOException("unexpected end of file at " + pos);
            }
            pos += n;
        }
    }
}
