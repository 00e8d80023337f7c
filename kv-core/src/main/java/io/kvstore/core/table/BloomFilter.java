package io.kvstore.core.table;

import io.kvstore.core.util.XxHash64;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A blocked Bloom filter: each key sets {@code k} bits inside one 512-bit (cache-line) block chosen by
 * its hash, so a probe touches one cache line. Costs slightly more false positives than a classic
 * filter of the same size (about 1% at 10 bits per key rather than 0.8%) for one memory access.
 *
 * <p>Layout: {@code [int32 k][int32 block count][block count x 8 x int64 words][int32 CRC32C]}.
 */
final class BloomFilter {
    static final int WORDS_PER_BLOCK = 8;

    private BloomFilter() {
    }

    /** Sets the bits of one key hash ({@link XxHash64#hash}) in a filter being built. */
    static void set(long[] words, int blocks, int hashes, long hash) {
        int base = block(hash, blocks) * WORDS_PER_BLOCK;
        long g = XxHash64.mix(hash);
        int bit = (int) g;
        int step = (int) (g >>> 32) | 1;
        for (int j = 0; j < hashes; j++, bit += step) {
            words[base + ((bit & 511) >>> 6)] |= 1L << (bit & 63);
        }
    }

    /** The filter as stored: header, words, then a CRC32C of both (a flipped bit must not hide a key). */
    static byte[] serialize(long[] words, int blocks, int hashes) {
        ByteBuffer out = ByteBuffer.allocate(8 + words.length * 8 + 4);
        out.putInt(hashes).putInt(blocks);
        for (long w : words) {
            out.putLong(w);
        }
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putInt((int) crc.getValue());
        return out.array();
    }

    /** Probes a filter stored at {@code offset} of {@code buffer}; false means certainly absent. */
    static boolean mightContain(ByteBuffer buffer, int offset, long hash) {
        int k = buffer.getInt(offset);
        int blocks = buffer.getInt(offset + 4);
        int base = offset + 8 + block(hash, blocks) * WORDS_PER_BLOCK * 8;
        long g = XxHash64.mix(hash);
        int bit = (int) g;
        int step = (int) (g >>> 32) | 1;
        for (int j = 0; j < k; j++, bit += step) {
            if ((buffer.getLong(base + ((bit & 511) >>> 6) * 8) & (1L << (bit & 63))) == 0) {
                return false;
            }
        }
        return true;
    }

    private static int block(long hash, int blocks) {
        return (int) (((hash >>> 32) * blocks) >>> 32); // a fair map of 32 hash bits onto [0, blocks)
    }
}
