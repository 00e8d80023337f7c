package io.kvstore.core.table;

/** Constants of the SSTable file format (docs/FORMAT.md). */
final class TableFormat {
    /** "KVSTBL01" in ASCII: the last eight bytes of every table. */
    static final long MAGIC = 0x4B565354424C3031L;
    static final int VERSION = 1;
    /** metaOffset(8) metaLength(4) indexOffset(8) indexLength(4) bloomOffset(8) bloomLength(4) version(4) crc(4) magic(8). */
    static final int FOOTER_BYTES = 52;

    private TableFormat() {
    }
}
