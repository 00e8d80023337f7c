package io.kvstore.core.internal.table;

import io.kvstore.core.CorruptionException;
import io.kvstore.core.internal.util.Coding;
import io.kvstore.core.internal.util.Crc32c;

import java.nio.file.Path;

/**
 * The last {@link #SIZE} bytes of a table: handles of the meta block, the index and the Bloom filter,
 * the largest block, the format version, a checksum and the magic number (docs/FORMAT.md).
 */
record Footer(int version, BlockHandle meta, BlockHandle index, BlockHandle bloom, int maxBlockSize) {
    static final int SIZE = 56;
    /** "KVSSTBL1" read as a little-endian long; the last 8 bytes of every table of every version. */
    static final long MAGIC = 0x314C42545353564BL;

    byte[] encode() {
        byte[] out = new byte[SIZE];
        meta.encode(out, 0);
        index.encode(out, 12);
        bloom.encode(out, 24);
        Coding.putInt(out, 36, maxBlockSize);
        Coding.putInt(out, 40, version);
        Coding.putInt(out, 44, Crc32c.of(out, 0, 44));
        Coding.putLong(out, 48, MAGIC);
        return out;
    }

    /**
     * Decodes and checks the footer {@code bytes} read at {@code footerOffset} of {@code file}: magic,
     * checksum, a known version, and handles that lie before the footer.
     */
    static Footer decode(Path file, byte[] bytes, long footerOffset) throws CorruptionException {
        if (Coding.getLong(bytes, 48) != MAGIC) {
            throw new CorruptionException(file, footerOffset + 48, "bad magic number: not an SSTable or truncated");
        }
        if (Coding.getInt(bytes, 44) != Crc32c.of(bytes, 0, 44)) {
            throw new CorruptionException(file, footerOffset, "footer checksum mismatch");
        }
        int version = Coding.getInt(bytes, 40);
        if (version < TableFormat.V1 || version > TableFormat.V3) {
            throw new CorruptionException(file, footerOffset + 40, "unsupported table format version " + version
                    + " (this build reads versions " + TableFormat.V1 + " to " + TableFormat.V3 + ")");
        }
        Footer footer = new Footer(version, BlockHandle.decode(bytes, 0), BlockHandle.decode(bytes, 12),
                BlockHandle.decode(bytes, 24), Coding.getInt(bytes, 36));
        footer.check(file, footerOffset, footer.meta);
        footer.check(file, footerOffset, footer.index);
        footer.check(file, footerOffset, footer.bloom);
        return footer;
    }

    private void check(Path file, long footerOffset, BlockHandle handle) throws CorruptionException {
        // offset > footerOffset - size rather than offset + size > footerOffset, which a huge offset overflows.
        if (handle.offset() < 0 || handle.size() < 0 || handle.size() > maxBlockSize
                || handle.offset() > footerOffset - handle.size() || maxBlockSize > TableFormat.MAX_BLOCK_SIZE) {
            throw new CorruptionException(file, footerOffset, "footer points outside the file: offset "
                    + handle.offset() + ", size " + handle.size());
        }
    }
}
