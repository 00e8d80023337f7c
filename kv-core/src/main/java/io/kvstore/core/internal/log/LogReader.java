package io.kvstore.core.internal.log;

import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.Storage;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Replays a log file written by {@link LogWriter}.
 *
 * <p>A torn tail ends the log quietly: what precedes it is returned, and opening never fails on it. A
 * bad record (an impossible or overlong length, or a failed checksum) is a torn tail when no valid
 * record follows it anywhere in the file (the last record cut short or garbled by a crash mid-write;
 * in a mapped log, a record followed by the zeros of the window ahead; a zero-filled tail), or when it
 * lies on a 4 KiB page of zeros (a machine crash wrote back later pages of the file but not that one,
 * so what follows was never forced to the device). Any other bad record is corruption, reported with
 * the file and the record's offset: a damaged length must not quietly drop every record after it.
 */
public final class LogReader {
    private static final long PAGE_BYTES = 4096;
    /** Receives each replayed entry in log order. */
    @FunctionalInterface
    public interface Sink {
        void accept(Entry entry) throws IOException;
    }

    /** What a replay found: records applied, where the valid log ends, and how many bytes were cut. */
    public static final class Result {
        public final long records;
        public final long validLength;
        public final long tornBytes;

        Result(long records, long validLength, long tornBytes) {
            this.records = records;
            this.validLength = validLength;
            this.tornBytes = tornBytes;
        }
    }

    private LogReader() {
    }

    /** Replays {@code file} of the real file system into {@code sink}. */
    public static Result replay(Path file, Sink sink) throws IOException {
        return replay(Storage.local(), file, sink);
    }

    /** Replays {@code file} of {@code storage} into {@code sink}. */
    public static Result replay(Storage storage, Path file, Sink sink) throws IOException {
        try (FileChannel channel = storage.open(file, StandardOpenOption.READ)) {
            return replay(channel, file, sink);
        }
    }

    private static Result replay(FileChannel channel, Path file, Sink sink) throws IOException {
        long size = channel.size();
        if (size < LogFormat.FILE_HEADER) {
            return new Result(0, 0, size);
        }
        // Not closed: it would close the channel, which the caller closes and a bad record still maps.
        InputStream in = new BufferedInputStream(Channels.newInputStream(channel), 1 << 16);
        byte[] header = readExactly(in, LogFormat.FILE_HEADER);
        if (Coding.getInt(header, 0) != LogFormat.MAGIC) {
            throw new CorruptionException(file, 0, "bad magic number: not a write-ahead log");
        }
        int version = Coding.getInt(header, 4);
        if (version != LogFormat.VERSION && version != LogFormat.V1) {
            throw new CorruptionException(file, 4, "unsupported log version " + version);
        }
        long position = LogFormat.FILE_HEADER;
        long records = 0;
        CRC32C crc = new CRC32C();
        byte[] recordHeader = new byte[LogFormat.RECORD_HEADER];
        while (position < size) {
            long remaining = size - position;
            if (remaining < LogFormat.RECORD_HEADER) {
                return torn(position, size, records);
            }
            readInto(in, recordHeader);
            int storedCrc = Coding.getInt(recordHeader, 0);
            int length = Coding.getInt(recordHeader, 4);
            if (length < LogFormat.PAYLOAD_HEADER || length > LogFormat.MAX_PAYLOAD) {
                return tornOrCorrupt(channel, file, size, position, LogFormat.RECORD_HEADER, records,
                        "impossible record length " + length);
            }
            if (LogFormat.RECORD_HEADER + (long) length > remaining) {
                // Only the header is the record's for certain: the rest of the file, which such a length
                // would span, ends in the zeros of a mapped log's window after a kill, and a zero page
                // there must not make a damaged length a torn tail with valid records after it.
                return tornOrCorrupt(channel, file, size, position, LogFormat.RECORD_HEADER, records,
                        "record length " + length + " reaches past the end of the file");
            }
            byte[] payload = readExactly(in, length);
            crc.reset();
            crc.update(recordHeader, 4, 4);
            crc.update(payload, 0, length);
            long end = position + LogFormat.RECORD_HEADER + length;
            if ((int) crc.getValue() != storedCrc) {
                return tornOrCorrupt(channel, file, size, position, end - position, records,
                        "record checksum mismatch");
            }
            sink.accept(decode(file, position, payload));
            records++;
            position = end;
        }
        return new Result(records, position, 0);
    }

    private static Entry decode(Path file, long position, byte[] payload) throws CorruptionException {
        byte kind = payload[0];
        long timestamp = Coding.getLong(payload, 1);
        int keyLength = Coding.getInt(payload, 9);
        if (keyLength < 0 || keyLength > payload.length - LogFormat.PAYLOAD_HEADER) {
            throw new CorruptionException(file, position, "key length " + keyLength + " exceeds the record");
        }
        byte[] key = Arrays.copyOfRange(payload, LogFormat.PAYLOAD_HEADER, LogFormat.PAYLOAD_HEADER + keyLength);
        int valueStart = LogFormat.PAYLOAD_HEADER + keyLength;
        if (kind == LogFormat.KIND_TOMBSTONE) {
            if (valueStart != payload.length) {
                throw new CorruptionException(file, position, "tombstone record carries a value");
            }
            return Entry.tombstone(key, timestamp);
        }
        if (kind == LogFormat.KIND_EXPIRING_VALUE) {
            if (valueStart + 8 > payload.length) {
                throw new CorruptionException(file, position, "expiring value record too short for its expiry");
            }
            return Entry.value(key, Arrays.copyOfRange(payload, valueStart + 8, payload.length), timestamp,
                    Coding.getLong(payload, valueStart));
        }
        if (kind != LogFormat.KIND_VALUE) {
            throw new CorruptionException(file, position, "unknown record kind " + kind);
        }
        return Entry.value(key, Arrays.copyOfRange(payload, valueStart, payload.length), timestamp);
    }

    private static Result torn(long position, long size, long records) {
        return new Result(records, position, size - position);
    }

    /**
     * The bad record of {@code span} bytes at {@code position}: a torn tail (see the class comment), or a
     * {@link CorruptionException} saying {@code problem}.
     */
    private static Result tornOrCorrupt(FileChannel channel, Path file, long size, long position, long span,
                                        long records, String problem) throws IOException {
        // At most one mapping's worth (2 GiB): far more than any record the store writes.
        long length = Math.min(size - position, Integer.MAX_VALUE);
        ByteBuffer rest = channel.map(FileChannel.MapMode.READ_ONLY, position, length).order(ByteOrder.LITTLE_ENDIAN);
        if (liesOnAZeroPage(rest, position, span) || nextValidRecord(rest) < 0) {
            return torn(position, size, records);
        }
        throw new CorruptionException(file, position, problem);
    }

    /**
     * Whether {@code [position, position + span)} touches a 4 KiB page of the file that holds only zeros
     * from the record on (the bytes before it on its first page are the good records read so far).
     */
    private static boolean liesOnAZeroPage(ByteBuffer rest, long position, long span) {
        long fileEnd = position + rest.capacity();
        for (long page = position & -PAGE_BYTES; page < position + span; page += PAGE_BYTES) {
            if (page + PAGE_BYTES > fileEnd) {
                return false; // a partial last page proves nothing: a tail is judged by what follows it
            }
            boolean zeros = true;
            for (long at = Math.max(page, position); at < page + PAGE_BYTES && zeros; at++) {
                zeros = rest.get((int) (at - position)) == 0;
            }
            if (zeros) {
                return true;
            }
        }
        return false;
    }

    /** Offset in {@code rest} of the first record after its first byte whose checksum holds, or -1. */
    private static int nextValidRecord(ByteBuffer rest) {
        CRC32C crc = new CRC32C();
        int size = rest.capacity();
        for (int at = 1; at + LogFormat.RECORD_HEADER + LogFormat.PAYLOAD_HEADER <= size; at++) {
            int length = rest.getInt(at + 4);
            if (length < LogFormat.PAYLOAD_HEADER || length > size - at - LogFormat.RECORD_HEADER) {
                continue;
            }
            crc.reset();
            crc.update(rest.duplicate().position(at + 4).limit(at + LogFormat.RECORD_HEADER + length));
            if ((int) crc.getValue() == rest.getInt(at)) {
                return at;
            }
        }
        return -1;
    }

    private static byte[] readExactly(InputStream in, int length) throws IOException {
        byte[] bytes = new byte[length];
        readInto(in, bytes);
        return bytes;
    }

    private static void readInto(InputStream in, byte[] bytes) throws IOException {
        int n = in.readNBytes(bytes, 0, bytes.length);
        if (n != bytes.length) {
            throw new EOFException("log shrank while being read");
        }
    }
}
