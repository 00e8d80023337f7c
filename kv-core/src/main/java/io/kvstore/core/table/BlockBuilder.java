package io.kvstore.core.table;

import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Builds one block: records appended back to back, then the trailer
 * {@code [int32 record offsets...][int32 record count][int32 CRC32C of all preceding block bytes]}.
 * Both data blocks and the index block use it; every record starts with {@code [int32 key length][key]}
 * so {@link Block} can binary-search either kind.
 */
final class BlockBuilder {
    private byte[] bytes = new byte[8 << 10];
    private int size;
    private int[] offsets = new int[256];
    private int count;
    private final CRC32C crc = new CRC32C();

    void startRecord(byte[] key) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
        }
        offsets[count++] = size;
        putInt(key.length);
        putBytes(key);
    }

    void putInt(int v) {
        ensure(4);
        bytes[size++] = (byte) (v >>> 24);
        bytes[size++] = (byte) (v >>> 16);
        bytes[size++] = (byte) (v >>> 8);
        bytes[size++] = (byte) v;
    }

    void putLong(long v) {
        putInt((int) (v >>> 32));
        putInt((int) v);
    }

    void putBytes(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Size of the block if finished now. */
    int estimatedSize() {
        return size + 4 * count + 8;
    }

    /** Appends the trailer; the block is {@code array()[0 .. length)} until {@link #reset()}. */
    int finish() {
        for (int i = 0; i < count; i++) {
            putInt(offsets[i]);
        }
        putInt(count);
        crc.reset();
        crc.update(bytes, 0, size);
        putInt((int) crc.getValue());
        return size;
    }

    byte[] array() {
        return bytes;
    }

    void reset() {
        size = 0;
        count = 0;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
