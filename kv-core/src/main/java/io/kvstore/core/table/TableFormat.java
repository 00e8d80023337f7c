package io.kvstore.core.table;

/** Constants of the SSTable file format; docs/FORMAT.md describes the layout byte by byte. */
final class TableFormat {
    /** "KVSSTBL1" read as a little-endian long; the last 8 bytes of every table. */
    static final long MAGIC = 0x314C42545353564BL;
    static final int VERSION = 1;
    /** meta, index, bloom handles (3 x 12) + maxBlockSize + version + crc + magic. */
    static final int FOOTER_SIZE = 56;
    /** keyLength u32, valueLength i32 (-1 = tombstone), timestamp i64. */
    static final int ENTRY_HEADER = 16;
    static final int TOMBSTONE_LENGTH = -1;
    /** Block trailer after the offsets array: entry count u32, crc32c u32. */
    static final int BLOCK_TRAILER = 8;
    /** A block handle in the index: offset u64, size u32. */
    static final int HANDLE_SIZE = 12;
    /** Tables are mapped in windows of this size (plus the largest block, so no block straddles two). */
    static final int SEGMENT_SHIFT = 30;
    /** Largest block (entry, index or filter) a table may hold, so a mapping window stays under 2 GiB. */
    static final int MAX_BLOCK_SIZE = (1 << 30) - 1;

    private TableFormat() {
    }
}
