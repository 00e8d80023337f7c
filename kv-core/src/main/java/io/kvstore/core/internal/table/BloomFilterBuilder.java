package io.kvstore.core.internal.table;

import io.kvstore.core.internal.util.Coding;

/** Builds a {@link BloomFilter} sized for an expected number of keys. */
final class BloomFilterBuilder {
    private final long[] bits;
    private final int lines;
    private final int probes;

    BloomFilterBuilder(long expectedKeys, int bitsPerKey) {
        long totalBits = Math.max(1, expectedKeys) * bitsPerKey;
        long lineCount = (totalBits + BloomFilter.LINE_BITS - 1) / BloomFilter.LINE_BITS;
        if (lineCount * BloomFilter.LINE_BYTES > TableFormat.MAX_BLOCK_SIZE) {
            lineCount = TableFormat.MAX_BLOCK_SIZE / BloomFilter.LINE_BYTES;
        }
        this.lines = (int) Math.max(1, lineCount);
        this.probes = BloomFilter.probesFor(bitsPerKey);
        this.bits = new long[lines * (BloomFilter.LINE_BITS / 64)];
    }

    void add(long hash) {
        int line = BloomFilter.lineOf(hash, lines) * (BloomFilter.LINE_BITS / 64);
        int bit = (int) hash;
        int delta = BloomFilter.probeDelta(hash);
        for (int i = 0; i < probes; i++) {
            int b = bit & (BloomFilter.LINE_BITS - 1);
            bits[line + (b >>> 6)] |= 1L << b;
            bit += delta;
        }
    }

    int lines() {
        return lines;
    }

    int probes() {
        return probes;
    }

    /** The filter as stored: each long little-endian. */
    byte[] toBytes() {
        byte[] out = new byte[bits.length * 8];
        for (int i = 0; i < bits.length; i++) {
            Coding.putLong(out, i * 8, bits[i]);
        }
        return out;
    }
}
