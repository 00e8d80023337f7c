package io.kvstore.core.internal.table;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
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

    /**
     * A codec of a native library, only ever called on direct buffers (the thread's {@link DirectScratch}
     * and the mapped table), never on heap arrays, which it would pin against collections while it runs.
     */
    private abstract static class NativeCodec extends BlockCodec {
        @Override
        final int compress(byte[] src, int length, byte[] dst) {
            DirectScratch scratch = DirectScratch.get();
            ByteBuffer out = scratch.output(dst.length);
            int n = compressDirect(scratch.input(src, length), length, out, dst.length);
            out.get(0, dst, 0, n);
            return n;
        }

        @Override
        final void decompress(ByteBuffer src, int at, int length, byte[] dst, int dstLength) {
            DirectScratch scratch = DirectScratch.get();
            boolean direct = src.isDirect();
            ByteBuffer out = scratch.output(dstLength);
            int n = decompressDirect(direct ? src : scratch.input(src, at, length), direct ? at : 0, length, out, dstLength);
            if (n != dstLength) {
                throw new IllegalStateException(name() + " produced " + n + " bytes, expected " + dstLength);
            }
            out.get(0, dst, 0, dstLength);
        }

        /** Compresses {@code in[0, length)} into {@code out} from 0, at most {@code maxLength} bytes; returns the length. */
        abstract int compressDirect(ByteBuffer in, int length, ByteBuffer out, int maxLength);

        /**
         * Decompresses {@code in[at, at + length)} into {@code out} from 0, at most {@code outLength} bytes;
         * returns the length. Throws IllegalStateException on malformed input.
         */
        abstract int decompressDirect(ByteBuffer in, int at, int length, ByteBuffer out, int outLength);
    }

    private static final class Lz4 extends NativeCodec {
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
        int compressDirect(ByteBuffer in, int length, ByteBuffer out, int maxLength) {
            return compressor.compress(in, 0, length, out, 0, maxLength);
        }

        @Override
        int decompressDirect(ByteBuffer in, int at, int length, ByteBuffer out, int outLength) {
            try {
                return decompressor.decompress(in, at, length, out, 0, outLength);
            } catch (LZ4Exception e) {
                throw new IllegalStateException("lz4: " + e.getMessage(), e);
            }
        }
    }

    private static final class Zstandard extends NativeCodec {
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
        int compressDirect(ByteBuffer in, int length, ByteBuffer out, int maxLength) {
            long n = Zstd.compressDirectByteBuffer(out, 0, maxLength, in, 0, length, Zstd.defaultCompressionLevel());
            if (Zstd.isError(n)) {
                throw new IllegalStateException("zstd compression failed: " + Zstd.getErrorName(n));
            }
            return (int) n;
        }

        @Override
        int decompressDirect(ByteBuffer in, int at, int length, ByteBuffer out, int outLength) {
            long n;
            try {
                n = CONTEXT.get().decompressDirectByteBuffer(out, 0, outLength, in, at, length);
            } catch (ZstdException e) {
                throw new IllegalStateException("zstd: " + e.getMessage(), e);
            }
            if (Zstd.isError(n)) {
                throw new IllegalStateException("zstd: " + Zstd.getErrorName(n));
            }
            return (int) n;
        }

        /** A thread's decompression context, reused from block to block: a new one per block costs more than the block. */
        private static final ThreadLocal<ZstdDecompressCtx> CONTEXT = ThreadLocal.withInitial(ZstdDecompressCtx::new);
    }
}
