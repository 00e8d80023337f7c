package io.kvstore.core.internal.util;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** CRC32C (Castagnoli) checksums over array and buffer ranges; the JDK implementation is intrinsified. */
public final class Crc32c {
    private Crc32c() {
    }

    public static int of(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /** Checksum of {@code buffer[position, position + length)}; the buffer's own position is untouched. */
    public static int of(ByteBuffer buffer, int position, int length) {
        CRC32C crc = new CRC32C();
        ByteBuffer view = buffer.duplicate();
        view.limit(position + length).position(position);
        crc.update(view);
        return (int) crc.getValue();
    }
}
