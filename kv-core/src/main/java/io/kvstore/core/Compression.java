package io.kvstore.core;

/**
 * How a store compresses the data blocks of the tables it writes ({@link DaoOptions#compression()}).
 * Each table records its own codec, so tables written under different settings are read side by side
 * and a change of setting applies to new tables only, as flushes and compactions write them.
 */
public enum Compression {
    /** Blocks are stored as they are and read in place from the mapping, with no copy. */
    NONE,
    /** LZ4 (lz4-java): fast to compress and to decompress, a moderate ratio. The default. */
    LZ4,
    /** Zstandard (zstd-jni) at its default level: a better ratio for more CPU per block. */
    ZSTD
}
