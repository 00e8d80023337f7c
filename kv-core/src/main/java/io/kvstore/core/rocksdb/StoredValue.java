package io.kvstore.core.rocksdb;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;

import java.util.Arrays;

/**
 * The layout of a RocksDB value written by {@link RocksDbDao}: RocksDB knows nothing of our
 * timestamps and tombstones, so both travel in front of the user's value.
 *
 * <pre>
 * offset  size  field
 * 0       8     timestamp, signed 64-bit, big-endian
 * 8       1     kind: 0 = value, 1 = tombstone, 2 = value with an expiry
 * 9       8     kind 2 only: expiry, milliseconds since the epoch, signed 64-bit, big-endian
 * 9 or 17 n     the value bytes (n = 0 for a tombstone and for an empty value)
 * </pre>
 *
 * A tombstone is therefore an ordinary RocksDB value (never a RocksDB delete): it must keep its
 * timestamp so that an older write arriving later cannot resurrect the key.
 */
final class StoredValue {
    /** Bytes in front of the user value. */
    static final int HEADER_BYTES = 9;

    private static final byte KIND_VALUE = 0;
    private static final byte KIND_TOMBSTONE = 1;
    private static final byte KIND_EXPIRING_VALUE = 2;

    private StoredValue() {
    }

    /** Encodes the value part of {@code entry}. */
    static byte[] encode(Entry entry) {
        byte[] value = entry.value();
        int length = value == null ? 0 : value.length;
        boolean expires = value != null && entry.expires();
        int valueAt = HEADER_BYTES + (expires ? 8 : 0);
        byte[] out = new byte[valueAt + length];
        writeLong(out, 0, entry.timestamp());
        out[8] = value == null ? KIND_TOMBSTONE : expires ? KIND_EXPIRING_VALUE : KIND_VALUE;
        if (expires) {
            writeLong(out, HEADER_BYTES, entry.expiresAtMillis());
        }
        if (value != null) {
            System.arraycopy(value, 0, out, valueAt, length);
        }
        return out;
    }

    /** Decodes a stored value of {@code key}. */
    static Entry decode(byte[] key, byte[] stored) {
        checkHeader(key, stored, stored.length);
        long timestamp = timestamp(stored);
        if (stored[8] == KIND_TOMBSTONE) {
            return Entry.tombstone(key, timestamp);
        }
        if (stored[8] == KIND_EXPIRING_VALUE) {
            return Entry.value(key, Arrays.copyOfRange(stored, HEADER_BYTES + 8, stored.length), timestamp,
                    readLong(stored, HEADER_BYTES));
        }
        return Entry.value(key, Arrays.copyOfRange(stored, HEADER_BYTES, stored.length), timestamp);
    }

    /** The timestamp in a header of at least {@link #HEADER_BYTES} bytes. */
    static long timestamp(byte[] header) {
        return readLong(header, 0);
    }

    private static long readLong(byte[] in, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (in[at + i] & 0xFF);
        }
        return v;
    }

    /** Rejects a value too short or of unknown kind: the store was not written by RocksDbDao. */
    static void checkHeader(byte[] key, byte[] stored, int storedLength) {
        if (storedLength < HEADER_BYTES
                || (stored[8] != KIND_VALUE && stored[8] != KIND_TOMBSTONE && stored[8] != KIND_EXPIRING_VALUE)
                || (stored[8] == KIND_EXPIRING_VALUE && storedLength < HEADER_BYTES + 8)) {
            throw new IllegalStateException("Corrupt RocksDB value for key " + Bytes.toDebugString(key)
                    + ": " + storedLength + " bytes, expected a " + HEADER_BYTES + "-byte header (timestamp, kind)");
        }
    }

    private static void writeLong(byte[] out, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            out[at + i] = (byte) v;
            v >>>= 8;
        }
    }
}
