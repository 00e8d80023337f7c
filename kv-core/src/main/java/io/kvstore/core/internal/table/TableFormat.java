package io.kvstore.core.internal.table;

/** Constants of the SSTable file format; docs/FORMAT.md describes the layout byte by byte. */
final class TableFormat {
    /** The first format: uncompressed blocks, no codec in the meta block. Read, never written. */
    static final int V1 = 1;
    /** The format written: a codec per table in the meta block, compressed data blocks with their own trailer. */
    static final int V2 = 2;
    /** Size of the footer, the last bytes of every table. */
    static final int FOOTER_SIZE = Footer.SIZE;
    /** keyLength u32, valueLength i32 (-1 = tombstone), timestamp i64. */
    static final int ENTRY_HEADER = 16;
    static final int TOMBSTONE_LENGTH = -1;
    /**
     * In an entry's value length (version 2): an 8-byte expiry follows the key, before the value.
     * Version 1 lengths never have it: values are at most 512 MiB.
     */
    static final int EXPIRES = 1 << 30;
    /** Block trailer after the offsets array: entry count u32, crc32c u32. */
    static final int BLOCK_TRAILER = 8;
    /** Trailer of a compressed data block after its compressed bytes: uncompressed size u32, crc32c u32. */
    static final int COMPRESSED_TRAILER = 8;
    /** A block handle in the index: offset u64, size u32. */
    static final int HANDLE_SIZE = BlockHandle.SIZE;
    /** Tables are mapped in windows of this size (plus the largest block, so no block straddles two). */
    static final int SEGMENT_SHIFT = 30;
    /** Largest block (entry, index or filter) a table may hold, so a mapping window stays under 2 GiB. */
    static final int MAX_BLOCK_SIZE = (1 << 30) - 1;

    private TableFormat() {
    }
}
