package io.kvstore.core.table;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Reads a block written by {@link BlockBuilder} in place, from a (memory-mapped) buffer, without
 * copying it: record lookup through the offset array and binary search on keys compared eight bytes at
 * a time.
 */
final class Block {
    private Block() {
    }

    static int count(ByteBuffer buf, int block, int length) {
        return buf.getInt(block + length - 8);
    }

    /** Absolute buffer position of record {@code i}. */
    static int record(ByteBuffer buf, int block, int length, int count, int i) {
        return block + buf.getInt(block + length - 8 - 4 * count + 4 * i);
    }

    /** Index of the first record whose key is {@code >= key}, or {@code count} if none. */
    static int seek(ByteBuffer buf, int block, int length, byte[] key) {
        int count = count(buf, block, length);
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (compareKey(buf, record(buf, block, length, count, mid), key) < 0) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /** Compares the key of the record at {@code record} with {@code key}, as unsigned bytes. */
    static int compareKey(ByteBuffer buf, int record, byte[] key) {
        int length = buf.getInt(record);
        int start = record + 4;
        int common = Math.min(length, key.length);
        int i = 0;
        for (; i + 8 <= common; i += 8) {
            long a = buf.getLong(start + i);
            long b = bigEndianLong(key, i);
            if (a != b) {
                return Long.compareUnsigned(a, b);
            }
        }
        for (; i < common; i++) {
            int a = buf.get(start + i) & 0xFF;
            int b = key[i] & 0xFF;
            if (a != b) {
                return a - b;
            }
        }
        return length - key.length;
    }

    static byte[] key(ByteBuffer buf, int record) {
        byte[] key = new byte[buf.getInt(record)];
        buf.get(record + 4, key);
        return key;
    }

    /** Whether the block's stored CRC32C matches its bytes. */
    static boolean verify(ByteBuffer buf, int block, int length) {
        if (length < 8) {
            return false;
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.slice(block, length - 4));
        return (int) crc.getValue() == buf.getInt(block + length - 4);
    }

    private static long bigEndianLong(byte[] b, int i) {
        return ((long) b[i] << 56) | ((b[i + 1] & 0xFFL) << 48) | ((b[i + 2] & 0xFFL) << 40) | ((b[i + 3] & 0xFFL) << 32)
                | ((b[i + 4] & 0xFFL) << 24) | ((b[i + 5] & 0xFFL) << 16) | ((b[i + 6] & 0xFFL) << 8) | (b[i + 7] & 0xFFL);
    }
}
