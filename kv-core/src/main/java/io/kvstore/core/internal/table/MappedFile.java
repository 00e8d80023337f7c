package io.kvstore.core.internal.table;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A table file mapped read-only in windows of {@code 2^shift} bytes that each extend by the largest
 * block past their end, so every block lies inside one window and files over 2 GiB need no special
 * case. A position in the file is addressed as a window ({@link #window}) and an index in it
 * ({@link #indexIn}). Mappings are never unmapped explicitly (a reader racing a compaction may still
 * touch them); the garbage collector releases them.
 */
final class MappedFile {
    private final MappedByteBuffer[] windows;
    private final int shift;

    private MappedFile(MappedByteBuffer[] windows, int shift) {
        this.windows = windows;
        this.shift = shift;
    }

    /** Maps the {@code size} bytes of {@code channel}, whose largest block is {@code maxBlockSize} bytes. */
    static MappedFile map(FileChannel channel, long size, int maxBlockSize, int shift) throws IOException {
        long windowSize = 1L << shift;
        int count = (int) Math.max(1, (size + windowSize - 1) >>> shift);
        MappedByteBuffer[] windows = new MappedByteBuffer[count];
        for (int i = 0; i < count; i++) {
            long start = i * windowSize;
            long length = Math.min(size - start, windowSize + maxBlockSize);
            windows[i] = channel.map(FileChannel.MapMode.READ_ONLY, start, length);
            windows[i].order(ByteOrder.LITTLE_ENDIAN);
        }
        return new MappedFile(windows, shift);
    }

    /** The little-endian window holding the block at {@code offset}. */
    ByteBuffer window(long offset) {
        return windows[(int) (offset >>> shift)];
    }

    /** The index of file position {@code offset} in its {@link #window}. */
    int indexIn(long offset) {
        return (int) (offset & ((1L << shift) - 1));
    }

    /** Whether every page is in memory now (mincore, one system call per window). */
    boolean isLoaded() {
        for (MappedByteBuffer window : windows) {
            if (!window.isLoaded()) {
                return false;
            }
        }
        return true;
    }
}
