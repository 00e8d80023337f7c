package io.kvstore.core.internal.table;

import io.kvstore.core.CorruptionException;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A table's block index, read in place from the mapping: for each data block its last key and its
 * handle, in key order. Lookups first narrow the search with {@link #lastKeyPrefixes}, a primitive
 * array on the heap (8 bytes per block), so they rarely touch the mapped index. The 8 bytes are taken
 * after the prefix all last keys share ({@link #shared}), so that keys which begin alike (a table or
 * tenant name, a common prefix of identifiers) still differ in them.
 */
final class BlockIndex {
    private final ByteBuffer buf;
    private final int base;
    private final int size;
    private final int count;
    /** The bytes every last key begins with: the common prefix of the first and the last. */
    private final byte[] shared;
    /**
     * The 8 bytes after {@link #shared} of each block's last key, big-endian, zero-padded, sign bit
     * flipped: narrows the index search to the blocks whose keys agree with the key's there.
     */
    private final long[] lastKeyPrefixes;

    /**
     * The index block at {@code [base, base + size)} of {@code buf}, its checksum verified, read from
     * {@code indexOffset} of {@code file}, after checking that each entry lies inside the block and holds
     * a handle, and that the handles lie in file order, apart, within {@code [0, dataEnd)} and no larger
     * than {@code maxBlockSize}. A checksum only proves the index is what its writer wrote; a reader that
     * trusted a handle out of range would fail with an exception that names neither file nor offset.
     */
    static BlockIndex open(Path file, ByteBuffer buf, int base, int size, long indexOffset, long dataEnd,
                           int maxBlockSize) throws CorruptionException {
        int count = Block.count(buf, base, size);
        long entriesEnd = size - TableFormat.BLOCK_TRAILER - 4L * count;
        long previousEnd = 0;
        for (int block = 0; block < count; block++) {
            long entry = buf.getInt(base + (int) entriesEnd + 4 * block);
            if (entry < 0 || entry > entriesEnd - TableFormat.ENTRY_HEADER) {
                throw new CorruptionException(file, indexOffset, "index entry " + block + " at " + entry
                        + " lies outside the index's " + entriesEnd + " bytes of entries");
            }
            int keyLength = Block.keyLength(buf, base + (int) entry);
            int valueLength = Block.valueLength(buf, base + (int) entry);
            if (keyLength < 0 || valueLength != BlockHandle.SIZE
                    || entry + TableFormat.ENTRY_HEADER + keyLength + BlockHandle.SIZE > entriesEnd) {
                throw new CorruptionException(file, indexOffset, "index entry " + block + " is not a key of "
                        + keyLength + " bytes and a block handle within the index (value of " + valueLength + " bytes)");
            }
            int handle = Block.keyPosition(base + (int) entry) + keyLength;
            long offset = BlockHandle.offsetAt(buf, handle);
            int blockSize = BlockHandle.sizeAt(buf, handle);
            if (offset < previousEnd || blockSize < TableFormat.BLOCK_TRAILER || blockSize > maxBlockSize
                    || offset > dataEnd - blockSize) {
                throw new CorruptionException(file, indexOffset, "index entry " + block + " points outside the data"
                        + " blocks: offset " + offset + ", size " + blockSize + " (data ends at " + dataEnd
                        + ", the previous block at " + previousEnd + ", largest block " + maxBlockSize + ")");
            }
            previousEnd = offset + blockSize;
        }
        return new BlockIndex(buf, base, size);
    }

    /** The index block at {@code [base, base + size)} of {@code buf}, its checksum verified and entries checked. */
    BlockIndex(ByteBuffer buf, int base, int size) {
        this.buf = buf;
        this.base = base;
        this.size = size;
        this.count = Block.count(buf, base, size);
        this.shared = count == 0 ? new byte[0] : commonPrefix(lastKey(0), lastKey(count - 1));
        this.lastKeyPrefixes = new long[count];
        for (int i = 0; i < count; i++) {
            int entry = Block.entryPosition(buf, base, size, count, i);
            lastKeyPrefixes[i] = Block.keyPrefix(buf, Block.keyPosition(entry) + shared.length,
                    Block.keyLength(buf, entry) - shared.length);
        }
    }

    private byte[] lastKey(int block) {
        int entry = Block.entryPosition(buf, base, size, count, block);
        byte[] key = new byte[Block.keyLength(buf, entry)];
        buf.get(Block.keyPosition(entry), key);
        return key;
    }

    private static byte[] commonPrefix(byte[] a, byte[] b) {
        int n = Arrays.mismatch(a, b);
        return n < 0 ? a : Arrays.copyOf(a, n);
    }

    /** Number of data blocks. */
    int count() {
        return count;
    }

    /** The first block whose last key is {@code >= key}, or {@link #count()}. */
    int find(byte[] key) {
        int compared = Math.min(shared.length, key.length);
        int c = Arrays.compareUnsigned(key, 0, compared, shared, 0, compared);
        if (c < 0 || c == 0 && key.length < shared.length) {
            return 0; // below every last key, or a proper prefix of all of them
        }
        if (c > 0) {
            return count;
        }
        long prefix = Block.keyPrefix(key, shared.length);
        // [lo, hi): blocks whose prefix equals the key's; before them every last key is smaller, after them larger.
        int lo = firstPrefixFrom(0, prefix, false);
        int hi = firstPrefixFrom(lo, prefix, true);
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

    /**
     * The first block from {@code from} whose prefix is at least {@code prefix} (above it if
     * {@code above}), or {@link #count()}.
     */
    private int firstPrefixFrom(int from, long prefix, boolean above) {
        long[] prefixes = lastKeyPrefixes;
        int lo = from;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (prefixes[mid] < prefix || above && prefixes[mid] == prefix) {
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
