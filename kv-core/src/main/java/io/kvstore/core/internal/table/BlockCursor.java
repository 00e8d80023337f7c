package io.kvstore.core.internal.table;

import java.nio.ByteBuffer;

/** Where a loaded data block lies: a buffer, the block's first index in it, its size and entry count. */
final class BlockCursor {
    ByteBuffer buf;
    int base;
    int size;
    int count;
}
