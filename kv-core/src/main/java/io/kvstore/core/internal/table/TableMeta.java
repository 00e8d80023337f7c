package io.kvstore.core.internal.table;

import io.kvstore.core.CorruptionException;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * A table's meta block: entry count, timestamp range, Bloom filter shape and checksum, key range, and
 * from format version 2 the codec of its data blocks (docs/FORMAT.md).
 */
record TableMeta(long entryCount, long minTimestamp, long maxTimestamp, int bloomLines, int bloomProbes,
                 int bloomCrc, byte[] firstKey, byte[] lastKey, int codecId) {
    private static final int FIXED_V1 = 8 * 3 + 4 * 3;

    /** The meta block of a table of format {@code version}. */
    byte[] encode(int version) {
        int size = FIXED_V1 + 4 + firstKey.length + 4 + lastKey.length + (version >= TableFormat.V2 ? 4 : 0) + 4;
        byte[] out = new byte[size];
        Coding.putLong(out, 0, entryCount);
        Coding.putLong(out, 8, minTimestamp);
        Coding.putLong(out, 16, maxTimestamp);
        Coding.putInt(out, 24, bloomLines);
        Coding.putInt(out, 28, bloomProbes);
        Coding.putInt(out, 32, bloomCrc);
        int p = FIXED_V1;
        Coding.putInt(out, p, firstKey.length);
        System.arraycopy(firstKey, 0, out, p + 4, firstKey.length);
        p += 4 + firstKey.length;
        Coding.putInt(out, p, lastKey.length);
        System.arraycopy(lastKey, 0, out, p + 4, lastKey.length);
        p += 4 + lastKey.length;
        if (version >= TableFormat.V2) {
            Coding.putInt(out, p, codecId);
            p += 4;
        }
        Coding.putInt(out, p, Crc32c.of(out, 0, p));
        return out;
    }

    /** Decodes and checks the meta block {@code bytes} of a version {@code version} table, read at {@code offset}. */
    static TableMeta decode(Path file, int version, byte[] bytes, long offset) throws CorruptionException {
        int size = bytes.length;
        if (size < FIXED_V1 + 12 || Coding.getInt(bytes, size - 4) != Crc32c.of(bytes, 0, size - 4)) {
            throw new CorruptionException(file, offset, "meta block checksum mismatch");
        }
        int end = size - 4 - (version >= TableFormat.V2 ? 4 : 0);
        int firstLength = Coding.getInt(bytes, FIXED_V1);
        if (firstLength < 0 || FIXED_V1 + 8L + firstLength > end) {
            throw new CorruptionException(file, offset + FIXED_V1, "meta block first key length " + firstLength);
        }
        int lastAt = FIXED_V1 + 4 + firstLength;
        int lastLength = Coding.getInt(bytes, lastAt);
        if (lastLength < 0 || lastAt + 4L + lastLength != end) {
            throw new CorruptionException(file, offset + lastAt, "meta block last key length " + lastLength);
        }
        int codecId = BlockCodec.NONE_ID;
        if (version >= TableFormat.V2) {
            codecId = Coding.getInt(bytes, end);
            BlockCodec.byId(codecId, file, offset + end);
        }
        return new TableMeta(Coding.getLong(bytes, 0), Coding.getLong(bytes, 8), Coding.getLong(bytes, 16),
                Coding.getInt(bytes, 24), Coding.getInt(bytes, 28), Coding.getInt(bytes, 32),
                Arrays.copyOfRange(bytes, FIXED_V1 + 4, FIXED_V1 + 4 + firstLength),
                Arrays.copyOfRange(bytes, lastAt + 4, lastAt + 4 + lastLength), codecId);
    }
}
