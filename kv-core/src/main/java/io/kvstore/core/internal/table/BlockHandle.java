package io.kvstore.core.internal.table;

import io.kvstore.core.internal.util.Coding;

import java.nio.ByteBuffer;

/** Where a block lies in a table file: {@code offset:u64 size:u32}, the size including its trailer. */
record BlockHandle(long offset, int size) {
    /** Encoded size in bytes. */
    static final int SIZE = 12;
    /** The handle of an absent block (no Bloom filter). */
    static final BlockHandle NONE = new BlockHandle(0, 0);

    void encode(byte[] dst, int at) {
        Coding.putLong(dst, at, offset);
        Coding.putInt(dst, at + 8, size);
    }

    static BlockHandle decode(byte[] src, int at) {
        return new BlockHandle(Coding.getLong(src, at), Coding.getInt(src, at + 8));
    }

    /** The offset of the handle at {@code at} of a little-endian buffer (an index entry's value). */
    static long offsetAt(ByteBuffer buf, int at) {
        return buf.getLong(at);
    }

    /** The size of the handle at {@code at} of a little-endian buffer. */
    static int sizeAt(ByteBuffer buf, int at) {
        return buf.getInt(at + 8);
    }
}
