package io.kvstore.cluster;

import io.kvstore.core.hash.XxHash64;

/**
 * The 64-bit hash every partitioner applies to key bytes and node names: XXH64 (xxHash, 64-bit
 * variant, by Yann Collet), the one implementation kvstore has ({@link XxHash64},
 * shared with the Bloom filters of kv-core).
 *
 * <p>Placement must be identical on every node, JVM and restart, so this function is part of the
 * on-the-wire contract of a cluster: changing it moves every key. {@code KeyHashTest} pins its output
 * against the reference implementation ({@code xxhsum -H64}).
 *
 * <p>XXH64 is well mixed (passes SMHasher), so sequential keys such as {@code "1", "2", ...} spread as
 * evenly as random ones; {@code String.hashCode} does not and must never be used for placement.
 * {@link #mix(long)} is a separate 64-bit finalizer for combining already-hashed values.
 */
public final class KeyHash {

    private KeyHash() {
    }

    /** XXH64 of {@code bytes} with seed 0: the hash of a key for placement. Allocation-free. */
    public static long hash64(byte[] bytes) {
        return XxHash64.xxh64(bytes, 0L);
    }

    /** XXH64 of {@code bytes} with the given seed. Allocation-free. */
    public static long hash64(byte[] bytes, long seed) {
        return XxHash64.xxh64(bytes, seed);
    }

    /**
     * A bijective 64-bit finalizer (Stafford's "Mix13" variant of the MurmurHash3 finalizer): every
     * input bit affects every output bit. Used to derive per-node weights and probe sequences from
     * values that are already hashes.
     */
    public static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }

    /**
     * Maps a 64-bit hash uniformly onto {@code [0, bound)} with a multiply and a shift instead of a
     * division (Lemire's "fastrange" on the high 32 bits). {@code bound} must be positive.
     */
    static int reduce(long hash, int bound) {
        return (int) (((hash >>> 32) * bound) >>> 32);
    }
}
