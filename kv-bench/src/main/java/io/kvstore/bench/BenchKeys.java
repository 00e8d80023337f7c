package io.kvstore.bench;

/**
 * The keys of the engine benchmarks: 16-byte keys that look random but are a pure function
 * of an index, so a preloaded store can be checked and reused, and absent keys are known to be absent.
 *
 * <p>The first 8 bytes are a bijective 64-bit mix of the index, so distinct indices give distinct
 * keys: indices {@code [0, n)} are stored, indices {@code [n, 2n)} are guaranteed absent.
 */
final class BenchKeys {
    static final int KEY_BYTES = 16;

    private BenchKeys() {
    }

    /** Writes the key of {@code index} into {@code key} (length {@link #KEY_BYTES}). */
    static void write(long index, byte[] key) {
        write(index, key, 0);
    }

    /** Writes the key of {@code index} into {@code key} from {@code offset} on ({@link #KEY_BYTES} bytes). */
    static void write(long index, byte[] key, int offset) {
        putLong(key, offset, mix(index));
        putLong(key, offset + 8, mix(index ^ 0x5DEECE66DL));
    }

    static byte[] key(long index) {
        byte[] key = new byte[KEY_BYTES];
        write(index, key);
        return key;
    }

    /**
     * Writes the ordered key of {@code index} (non-negative) into {@code key}: the index big-endian, then
     * the same mix as {@link #write}, so that keys sort as their indices do and a store can be filled in
     * key order.
     */
    static void writeOrdered(long index, byte[] key) {
        putLong(key, 0, index);
        putLong(key, 8, mix(index ^ 0x5DEECE66DL));
    }

    /** MurmurHash3's fmix64: a bijection on 64-bit values with good avalanche. */
    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }

    private static void putLong(byte[] out, int offset, long v) {
        for (int i = 7; i >= 0; i--) {
            out[offset + i] = (byte) v;
            v >>>= 8;
        }
    }
}
