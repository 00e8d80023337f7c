package io.kvstore.core.internal.table;

/** Constants of the SSTable file format; docs/FORMAT.md describes the layout byte by byte. */
final class TableFormat {
    /** The first format: uncompressed blocks, no codec in the meta block. Read, never written. */
    static final int V1 = 1;
    /** A codec per table in the meta block, compressed data blocks with their own trailer. Read, never written. */
    static final int V2 = 2;
    /** The format written: version 2, whose compressed tables may also store a data block as it is ({@link #STORED}). */
    static final int V3 = 3;
    /** Size of the footer, the last bytes of every table. */
    static final int FOOTER_SIZE = Footer.SIZE;
    /** keyLength u32, valueLength i32 (-1 = tombstone), timestamp i64. */
    static final int ENTRY_HEADER = 16;
    static final int TOMBSTONE_LENGTH = -1;
    /**
     * In an entry's value length (versions 2 and 3): an 8-byte expiry follows the key, before the value.
     * Version 1 lengths never have it: values are at most 512 MiB.
     */
    static final int EXPIRES = 1 << 30;
    /** Block trailer after the offsets array: entry count u32, crc32c u32. */
    static final int BLOCK_TRAILER = 8;
    /** Trailer of a compressed data block after its compressed bytes: uncompressed size u32, crc32c u32. */
    static final int COMPRESSED_TRAILER = 8;
    /**
     * In a compressed data block's uncompressed size (version 3): the block is stored as it is, not
     * compressed, and read in place. Sizes are at most {@link #MAX_BLOCK_SIZE}, so no other size has the bit.
     */
    static final int STORED = 1 << 31;
    /**
     * A block whose compression saves less than {@code 1 / STORE_SAVINGS_DIVISOR} of it is stored as it is
     * (RocksDB's threshold too): decompressing it on every read, and caching it on the heap, would cost more
     * than the few bytes saved.
     */
    static final int STORE_SAVINGS_DIVISOR = 8;
    /** A block handle in the index: offset u64, size u32. */
    static final int HANDLE_SIZE = BlockHandle.SIZE;
    /** Tables are mapped in windows of this size (plus the largest block, so no block straddles two). */
    static final int SEGMENT_SHIFT = 30;
    /** Largest block (entry, index or filter) a table may hold, so a mapping window stays under 2 GiB. */
    static final int MAX_BLOCK_SIZE = (1 << 30) - 1;

    private TableFormat() {
    }
}
