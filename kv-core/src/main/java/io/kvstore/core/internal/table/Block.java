package io.kvstore.core.internal.table;

import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.Coding;

import java.nio.ByteBuffer;

/**
 * Reads a block written by {@link BlockBuilder} in place, from a little-endian buffer (a slice of a
 * mapped table) without copying it. A block is addressed by its buffer, base position and size;
 * entries by their position. All methods are static so the hot path allocates nothing.
 */
final class Block {
    private Block() {
    }

    static int count(ByteBuffer buf, int base, int size) {
        return buf.getInt(base + size - TableFormat.BLOCK_TRAILER);
    }

    /** Position of entry {@code i} in the buffer. */
    static int entryPosition(ByteBuffer buf, int base, int size, int count, int i) {
        int offsetsStart = base + size - TableFormat.BLOCK_TRAILER - 4 * count;
        return base + buf.getInt(offsetsStart + 4 * i);
    }

    static int keyLength(ByteBuffer buf, int entry) {
        return buf.getInt(entry);
    }

    static int valueLength(ByteBuffer buf, int entry) {
        return buf.getInt(entry + 4);
    }

    static long timestamp(ByteBuffer buf, int entry) {
        return buf.getLong(entry + 8);
    }

    static int keyPosition(int entry) {
        return entry + TableFormat.ENTRY_HEADER;
    }

    /** Index of the first entry whose key is {@code >= key}, or {@code count} if none. */
    static int lowerBound(ByteBuffer buf, int base, int size, int count, byte[] key) {
        int offsetsStart = base + size - TableFormat.BLOCK_TRAILER - 4 * count;
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int entry = base + buf.getInt(offsetsStart + 4 * mid);
            if (compareKey(buf, entry + TableFormat.ENTRY_HEADER, buf.getInt(entry), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Compares the key stored at {@code [pos, pos + len)} with {@code key}, as unsigned bytes. */
    static int compareKey(ByteBuffer buf, int pos, int len, byte[] key) {
        return compareKey(buf, pos, len, key, key.length);
    }

    /** Compares the key stored at {@code [pos, pos + len)} with {@code key[0, keyLength)}, as unsigned bytes. */
    static int compareKey(ByteBuffer buf, int pos, int len, byte[] key, int keyLength) {
        int n = Math.min(len, keyLength);
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long stored = Long.reverseBytes(buf.getLong(pos + i));
            long wanted = Coding.getLongBigEndian(key, i);
            if (stored != wanted) {
                return Long.compareUnsigned(stored, wanted);
            }
        }
        for (; i < n; i++) {
            int c = (buf.get(pos + i) & 0xFF) - (key[i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return len - keyLength;
    }

    /** Compares {@code a[pa, pa + la)} with {@code b[pb, pb + lb)} as unsigned bytes. */
    static int compareBytes(ByteBuffer a, int pa, int la, ByteBuffer b, int pb, int lb) {
        int n = Math.min(la, lb);
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long x = Long.reverseBytes(a.getLong(pa + i));
            long y = Long.reverseBytes(b.getLong(pb + i));
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < n; i++) {
            int c = (a.get(pa + i) & 0xFF) - (b.get(pb + i) & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return la - lb;
    }

    /**
     * The first 8 bytes of a key as a big-endian number, zero-padded, with the sign bit flipped, so
     * that signed comparison of prefixes agrees with unsigned order of keys (ties need the full key).
     */
    static long keyPrefix(byte[] key) {
        return keyPrefix(key, 0);
    }

    /** {@link #keyPrefix(byte[])} of {@code key} from {@code from} on ({@code from <= key.length}). */
    static long keyPrefix(byte[] key, int from) {
        if (key.length - from >= 8) {
            return Coding.getLongBigEndian(key, from) ^ Long.MIN_VALUE;
        }
        long p = 0;
        for (int i = from; i < from + 8; i++) {
            p = (p << 8) | (i < key.length ? key[i] & 0xFF : 0);
        }
        return p ^ Long.MIN_VALUE;
    }

    /** {@link #keyPrefix(byte[])} of the key stored at {@code [pos, pos + len)}. */
    static long keyPrefix(ByteBuffer buf, int pos, int len) {
        if (len >= 8) {
            return Long.reverseBytes(buf.getLong(pos)) ^ Long.MIN_VALUE;
        }
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = (p << 8) | (i < len ? buf.get(pos + i) & 0xFF : 0);
        }
        return p ^ Long.MIN_VALUE;
    }

    /** Copies the entry at {@code entry} out of the buffer. */
    static Entry decode(ByteBuffer buf, int entry) {
        int keyLength = buf.getInt(entry);
        byte[] key = new byte[keyLength];
        buf.get(entry + TableFormat.ENTRY_HEADER, key);
        return decodeWithKey(buf, entry, key);
    }

    /** Decodes the entry at {@code entry} reusing {@code key} (known equal to the stored key). */
    static Entry decodeWithKey(ByteBuffer buf, int entry, byte[] key) {
        int valueLength = buf.getInt(entry + 4);
        long timestamp = buf.getLong(entry + 8);
        if (valueLength == TableFormat.TOMBSTONE_LENGTH) {
            return Entry.tombstone(key, timestamp);
        }
        int valueAt = entry + TableFormat.ENTRY_HEADER + key.length;
        if ((valueLength & TableFormat.EXPIRES) == 0) {
            byte[] value = new byte[valueLength];
            buf.get(valueAt, value);
            return Entry.value(key, value, timestamp);
        }
        byte[] value = new byte[valueLength & ~TableFormat.EXPIRES];
        buf.get(valueAt + 8, value);
        return Entry.value(key, value, timestamp, buf.getLong(valueAt));
    }
}
