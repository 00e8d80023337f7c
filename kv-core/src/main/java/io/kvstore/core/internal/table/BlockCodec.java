package io.kvstore.core.internal.table;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import io.kvstore.core.Compression;
import io.kvstore.core.CorruptionException;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Compresses and decompresses data blocks with the codec a table records in its meta block
 * ({@link TableMeta#codec()}); the number of each codec is part of the file format.
 * Thread-safe: a codec that needs state between calls keeps one per thread.
 */
abstract class BlockCodec {
    /** Format number of {@link Compression#NONE}. */
    static final int NONE_ID = 0;
    /** Format number of {@link Compression#LZ4}. */
    static final int LZ4_ID = 1;
    /** Format number of {@link Compression#ZSTD}. */
    static final int ZSTD_ID = 2;

    private static final BlockCodec NONE = new None();
    private static final BlockCodec LZ4 = new Lz4();
    private static final BlockCodec ZSTD = new Zstandard();

    /** The codec of {@code compression}. */
    static BlockCodec of(Compression compression) {
        switch (compression) {
            case NONE:
                return NONE;
            case LZ4:
                return LZ4;
            case ZSTD:
                return ZSTD;
            default:
                throw new IllegalArgumentException("no codec for " + compression);
        }
    }

    /** The codec numbered {@code id} in a table's meta block at {@code offset} of {@code file}. */
    static BlockCodec byId(int id, Path file, long offset) throws CorruptionException {
        switch (id) {
            case NONE_ID:
                return NONE;
            case LZ4_ID:
                return LZ4;
            case ZSTD_ID:
                return ZSTD;
            default:
                throw new CorruptionException(file, offset, "unknown block codec " + id
                        + " (known: 0 none, 1 lz4, 2 zstd): written by a newer version, or damaged");
        }
    }

    abstract int id();

    abstract String name();

    /** Whether blocks are stored as they are (read in place, no trailer of their own). */
    boolean isIdentity() {
        return false;
    }

    /** The most bytes {@link #compress} may produce from {@code length} bytes. */
    abstract int maxCompressedLength(int length);

    /** Compresses {@code src[0, length)} into {@code dst} from 0; returns the compressed length. */
    abstract int compress(byte[] src, int length, byte[] dst);

    /**
     * Decompresses {@code src[at, at + length)} into {@code dst[0, dstLength)}, which it must fill exactly.
     * Throws IllegalStateException on malformed input (the caller names the file and offset).
     */
    abstract void decompress(ByteBuffer src, int at, int length, byte[] dst, int dstLength);

    @Override
    public String toString() {
        return name();
    }

    private static final class None extends BlockCodec {
        @Override
        int id() {
            return NONE_ID;
        }

        @Override
        String name() {
            return "none";
        }

        @Override
        boolean isIdentity() {
            return true;
        }

        @Override
        int maxCompressedLength(int length) {
            return length;
        }

        @Override
        int compress(byte[] src, int length, byte[] dst) {
            System.arraycopy(src, 0, dst, 0, length);
            return length;
        }

        @Override
        void decompress(ByteBuffer src, int at, int length, byte[] dst, int dstLength) {
            if (length != dstLength) {
                throw new IllegalStateException("stored " + length + " bytes, expected " + dstLength);
            }
            src.get(at, dst, 0, length);
        }
    }

    private static final class Lz4 extends BlockCodec {
        private final LZ4Compressor compressor = LZ4Factory.fastestInstance().fastCompressor();
        private final LZ4SafeDecompressor decompressor = LZ4Factory.fastestInstance().safeDecompressor();

        @Override
        int id() {
            return LZ4_ID;
        }

        @Override
        String name() {
            return "lz4";
        }

        @Override
        int maxCompressedLength(int length) {
            return compressor.maxCompressedLength(length);
        }

        @Override
        int compress(byte[] src, int length, byte[] dst) {
            return compressor.compress(src, 0, length, dst, 0, dst.length);
        }

        @Override
        void decompress(ByteBuffer src, int at, int length, byte[] dst, int dstLength) {
            int n;
            try {
                n = decompressor.decompress(src, at, length, ByteBuffer.wrap(dst), 0, dstLength);
            } catch (LZ4Exception e) {
                throw new IllegalStateException("lz4: " + e.getMessage(), e);
            }
            if (n != dstLength) {
                throw new IllegalStateException("lz4 produced " + n + " bytes, expected " + dstLength);
            }
        }
    }

    private static final class Zstandard extends BlockCodec {
        @Override
        int id() {
            return ZSTD_ID;
        }

        @Override
        String name() {
            return "zstd";
        }

        @Override
        int maxCompressedLength(int length) {
            return (int) Math.min(Integer.MAX_VALUE - 16, Zstd.compressBound(length));
        }

        @Override
        int compress(byte[] src, int length, byte[] dst) {
            long n = Zstd.compressByteArray(dst, 0, dst.length, src, 0, length, Zstd.defaultCompressionLevel());
            if (Zstd.isError(n)) {
                throw new IllegalStateException("zstd compression failed: " + Zstd.getErrorName(n));
            }
            return (int) n;
        }

        @Override
        void decompress(ByteBuffer src, int at, int length, byte[] dst, int dstLength) {
            Decompression d = PER_THREAD.get();
            byte[] compressed = d.input(length);
            src.get(at, compressed, 0, length);
            long n = d.context.decompressByteArray(dst, 0, dstLength, compressed, 0, length);
            if (Zstd.isError(n)) {
                throw new IllegalStateException("zstd: " + Zstd.getErrorName(n));
            }
            if (n != dstLength) {
                throw new IllegalStateException("zstd produced " + n + " bytes, expected " + dstLength);
            }
        }

        /**
         * A thread's decompression context and input buffer, reused from block to block: a new context
         * per block costs more than the decompression itself, and the native call takes arrays.
         */
        private static final ThreadLocal<Decompression> PER_THREAD = ThreadLocal.withInitial(Decompression::new);

        private static final class Decompression {
            final ZstdDecompressCtx context = new ZstdDecompressCtx();
            private byte[] input = new byte[16 << 10];

            byte[] input(int length) {
                if (input.length < length) {
                    input = new byte[Math.max(length, 2 * input.length)];
                }
                return input;
            }
        }
    }
}
