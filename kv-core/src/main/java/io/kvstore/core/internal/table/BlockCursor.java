package io.kvstore.core.internal.table;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Where a loaded data block lies: a buffer, the block's first index in it, its size and entry count;
 * and, for a reader that passes the block cache by, the array it decompresses blocks into, reused from
 * block to block.
 */
final class BlockCursor {
    ByteBuffer buf;
    int base;
    int size;
    int count;
    private ByteBuffer scratch;

    /**
     * A little-endian heap buffer of at least {@code length} bytes, the same one from call to call while
     * it is large enough: what this cursor pointed at before is overwritten.
     */
    ByteBuffer scratch(int length) {
        if (scratch == null || scratch.capacity() < length) {
            int capacity = scratch == null ? length : Math.max(length, Math.min(TableFormat.MAX_BLOCK_SIZE, 2 * scratch.capacity()));
            scratch = ByteBuffer.wrap(new byte[capacity]).order(ByteOrder.LITTLE_ENDIAN);
        }
        return scratch;
    }
}
