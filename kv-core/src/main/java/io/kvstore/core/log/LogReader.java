package io.kvstore.core.log;

import io.kvstore.core.Entry;
import io.kvstore.core.util.Coding;
import io.kvstore.core.CorruptionException;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Replays a log file written by {@link LogWriter}.
 *
 * <p>A torn tail — the last record cut short or garbled by a crash mid-write (in a mapped log, a
 * record followed by the zeros of the window ahead), or a zero-filled tail — ends the log quietly:
 * what precedes it is returned, and opening never fails on it. A bad
 * record followed by further data is corruption, reported with the file and the record's offset.
 */
public final class LogReader {
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

    public static Result replay(Path file, Sink sink) throws IOException {
        long size = Files.size(file);
        if (size < LogFormat.FILE_HEADER) {
            return new Result(0, 0, size);
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            byte[] header = readExactly(in, LogFormat.FILE_HEADER);
            if (Coding.getInt(header, 0) != LogFormat.MAGIC) {
                throw new CorruptionException(file, 0, "bad magic number: not a write-ahead log");
            }
            if (Coding.getInt(header, 4) != LogFormat.VERSION) {
                throw new CorruptionException(file, 4, "unsupported log version " + Coding.getInt(header, 4));
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
                    // Only zeros after it: a header cut short by a crash (or itself zeros).
                    if (restIsZero(in)) {
                        return torn(position, size, records);
                    }
                    throw new CorruptionException(file, position, "impossible record length " + length);
                }
                if (LogFormat.RECORD_HEADER + (long) length > remaining) {
                    return torn(position, size, records);
                }
                byte[] payload = readExactly(in, length);
                crc.reset();
                crc.update(recordHeader, 4, 4);
                crc.update(payload, 0, length);
                long end = position + LogFormat.RECORD_HEADER + length;
                if ((int) crc.getValue() != storedCrc) {
                    // The last record, or followed only by zeros: one a crash cut short while it was
                    // being copied into a mapped log (whose window ahead is zeros), or a zero-filled tail.
                    if (end == size || restIsZero(in)) {
                        return torn(position, size, records);
                    }
                    throw new CorruptionException(file, position, "record checksum mismatch");
                }
                sink.accept(decode(file, position, payload));
                records++;
                position = end;
            }
            return new Result(records, position, 0);
        }
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
        if (kind != LogFormat.KIND_VALUE) {
            throw new CorruptionException(file, position, "unknown record kind " + kind);
        }
        return Entry.value(key, Arrays.copyOfRange(payload, valueStart, payload.length), timestamp);
    }

    private static Result torn(long position, long size, long records) {
        return new Result(records, position, size - position);
    }

    /** True if everything left in the stream is zero bytes (a mapped window's or a preallocated tail). */
    private static boolean restIsZero(InputStream in) throws IOException {
        byte[] chunk = new byte[8192];
        int n;
        while ((n = in.read(chunk)) > 0) {
            for (int i = 0; i < n; i++) {
                if (chunk[i] != 0) {
                    return false;
                }
            }
        }
        return true;
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
