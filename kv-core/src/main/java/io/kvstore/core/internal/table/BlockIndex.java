package io.kvstore.core.internal.table;

import java.nio.ByteBuffer;

/**
 * A table's block index, read in place from the mapping: for each data block its last key and its
 * handle, in key order. Lookups first narrow the search with {@link #lastKeyPrefixes}, a primitive
 * array on the heap (8 bytes per block), so they rarely touch the mapped index.
 */
final class BlockIndex {
    private final ByteBuffer buf;
    private final int base;
    private final int size;
    private final int count;
    /**
     * The first 8 bytes of each block's last key, big-endian, zero-padded, sign bit flipped: narrows
     * the index search to the blocks sharing the key's prefix.
     */
    private final long[] lastKeyPrefixes;

    /** The index block at {@code [base, base + size)} of {@code buf}, its checksum verified. */
    BlockIndex(ByteBuffer buf, int base, int size) {
        this.buf = buf;
        this.base = base;
        this.size = size;
        this.count = Block.count(buf, base, size);
        this.lastKeyPrefixes = new long[count];
        for (int i = 0; i < count; i++) {
            int entry = Block.entryPosition(buf, base, size, count, i);
            lastKeyPrefixes[i] = Block.keyPrefix(buf, Block.keyPosition(entry), Block.keyLength(buf, entry));
        }
    }

    /** Number of data blocks. */
    int count() {
        return count;
    }

    /** The first block whose last key is {@code >= key}, or {@link #count()}. */
    int find(byte[] key) {
        long prefix = Block.keyPrefix(key);
        long[] prefixes = lastKeyPrefixes;
        // [lo, hi): blocks whose prefix equals the key's; before them every last key is smaller, after them larger.
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (prefixes[mid] < prefix) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        hi = lo;
        while (hi < count && prefixes[hi] == prefix) {
            hi++;
        }
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int entry = Block.entryPosition(buf, base, size, count, mid);
            if (Block.compareKey(buf, Block.keyPosition(entry), Block.keyLength(buf, entry), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** File offset of data block {@code block}. */
    long offset(int block) {
        return BlockHandle.offsetAt(buf, handleAt(block));
    }

    /** Stored size of data block {@code block}, trailer included. */
    int size(int block) {
        return BlockHandle.sizeAt(buf, handleAt(block));
    }

    private int handleAt(int block) {
        int entry = Block.entryPosition(buf, base, size, count, block);
        return Block.keyPosition(entry) + Block.keyLength(buf, entry);
    }
}
