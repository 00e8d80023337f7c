package io.kvstore.core.internal.table;

import io.kvstore.core.Entry;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Accumulates sorted entries into one block: entries back to back, then the offset of each entry,
 * the entry count and a CRC32C of everything before it. Binary search runs on the offsets array.
 * REQUIRES: keys added in strictly increasing order (checked by the table writer).
 */
final class BlockBuilder {
    private byte[] buffer = new byte[8 << 10];
    private int size;
    private int[] offsets = new int[64];
    private int count;

    void add(byte[] key, byte[] value, long timestamp) {
        add(key, value, timestamp, Entry.NEVER);
    }

    /** Adds an entry; a value expiring at {@code expiresAtMillis} (not {@link Entry#NEVER}) records it. */
    void add(byte[] key, byte[] value, long timestamp, long expiresAtMillis) {
        add(key, key.length, value, timestamp, expiresAtMillis);
    }

    /** {@link #add(byte[], byte[], long, long)} of the key {@code key[0, keyLength)}. */
    void add(byte[] key, int keyLength, byte[] value, long timestamp, long expiresAtMillis) {
        int valueLength = value == null ? 0 : value.length;
        boolean expires = value != null && expiresAtMillis != Entry.NEVER;
        ensure(TableFormat.ENTRY_HEADER + keyLength + (expires ? 8 : 0) + valueLength);
        startEntry();
        Coding.putInt(buffer, size, keyLength);
        Coding.putInt(buffer, size + 4, value == null ? TableFormat.TOMBSTONE_LENGTH
                : expires ? valueLength | TableFormat.EXPIRES : valueLength);
        Coding.putLong(buffer, size + 8, timestamp);
        size += TableFormat.ENTRY_HEADER;
        System.arraycopy(key, 0, buffer, size, keyLength);
        size += keyLength;
        if (expires) {
            Coding.putLong(buffer, size, expiresAtMillis);
            size += 8;
        }
        if (valueLength > 0) {
            System.arraycopy(value, 0, buffer, size, valueLength);
            size += valueLength;
        }
    }

    /** Adds an entry stored as {@code buf[entry, entry + length)} in a block of this format, copied as it is. */
    void addStored(ByteBuffer buf, int entry, int length) {
        ensure(length);
        startEntry();
        buf.get(entry, buffer, size, length);
        size += length;
    }

    private void startEntry() {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
        }
        offsets[count++] = size;
    }

    int count() {
        return count;
    }

    /** Size the block would have if finished now. */
    long estimatedSize() {
        return (long) size + 4L * count + TableFormat.BLOCK_TRAILER;
    }

    /** Appends the trailer; the finished block is {@link #buffer()}[0, {@link #size()}). */
    void finish() {
        ensure(4 * count + TableFormat.BLOCK_TRAILER);
        for (int i = 0; i < count; i++) {
            Coding.putInt(buffer, size, offsets[i]);
            size += 4;
        }
        Coding.putInt(buffer, size, count);
        size += 4;
        Coding.putInt(buffer, size, Crc32c.of(buffer, 0, size));
        size += 4;
    }

    byte[] buffer() {
        return buffer;
    }

    int size() {
        return size;
    }

    void reset() {
        size = 0;
        count = 0;
    }

    private void ensure(int extra) {
        long needed = (long) size + extra;
        if (needed > TableFormat.MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("block would exceed " + TableFormat.MAX_BLOCK_SIZE + " bytes");
        }
        if (needed > buffer.length) {
            buffer = Arrays.copyOf(buffer, (int) Math.min(TableFormat.MAX_BLOCK_SIZE, Math.max(needed, 2L * buffer.length)));
        }
    }
}
