package io.kvstore.core.internal.table;

import java.nio.ByteBuffer;

/**
 * A blocked Bloom filter read in place: the key's hash picks one 512-bit line (one cache line),
 * and every probe sets or tests a bit inside that line, so a lookup touches one cache line.
 * Lines are stored as 8 little-endian longs each.
 */
final class BloomFilter {
    static final int LINE_BITS = 512;
    static final int LINE_BYTES = LINE_BITS / 8;

    private final ByteBuffer buf;
    private final int base;
    private final int lines;
    private final int probes;

    BloomFilter(ByteBuffer buf, int base, int lines, int probes) {
        this.buf = buf;
        this.base = base;
        this.lines = lines;
        this.probes = probes;
    }

    boolean mightContain(long hash) {
        int line = base + lineOf(hash, lines) * LINE_BYTES;
        int bit = (int) hash;
        int delta = probeDelta(hash);
        for (int i = 0; i < probes; i++) {
            int b = bit & (LINE_BITS - 1);
            if ((buf.getLong(line + ((b >>> 6) << 3)) & (1L << b)) == 0) {
                return false;
            }
            bit += delta;
        }
        return true;
    }

    /** Line of a hash: multiply-high of the upper 32 bits maps uniformly onto {@code [0, lines)}. */
    static int lineOf(long hash, int lines) {
        return (int) (((hash >>> 32) * lines) >>> 32);
    }

    /** Odd step between probes, from bits the line choice does not use. */
    static int probeDelta(long hash) {
        return (int) ((hash * 0x9E3779B97F4A7C15L) >>> 40) | 1;
    }

    /** Probes per key minimising false positives for {@code bitsPerKey}: round(bitsPerKey * ln 2). */
    static int probesFor(int bitsPerKey) {
        return Math.max(1, Math.min(16, (int) Math.round(bitsPerKey * 0.69)));
    }
}
