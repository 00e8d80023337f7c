package io.kvstore.cluster;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The 64-bit hash every partitioner applies to key bytes and node names: XXH64 (xxHash, 64-bit
 * variant, by Yann Collet), implemented here from its published specification.
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
    private static final long PRIME64_1 = 0x9E3779B185EBCA87L;
    private static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long PRIME64_3 = 0x165667B19E3779F9L;
    private static final long PRIME64_4 = 0x85EBCA77C2B2AE63L;
    private static final long PRIME64_5 = 0x27D4EB2F165667C5L;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private KeyHash() {
    }

    /** XXH64 of {@code bytes} with seed 0: the hash of a key for placement. Allocation-free. */
    public static long hash64(byte[] bytes) {
        return hash64(bytes, 0L);
    }

    /** XXH64 of {@code bytes} with the given seed. Allocation-free. */
    public static long hash64(byte[] bytes, long seed) {
        int length = bytes.length;
        int offset = 0;
        long hash;
        if (length >= 32) {
            long v1 = seed + PRIME64_1 + PRIME64_2;
            long v2 = seed + PRIME64_2;
            long v3 = seed;
            long v4 = seed - PRIME64_1;
            int limit = length - 32;
            do {
                v1 = round(v1, (long) LONG_LE.get(bytes, offset));
                v2 = round(v2, (long) LONG_LE.get(bytes, offset + 8));
                v3 = round(v3, (long) LONG_LE.get(bytes, offset + 16));
                v4 = round(v4, (long) LONG_LE.get(bytes, offset + 24));
                offset += 32;
            } while (offset <= limit);
            hash = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            hash = mergeRound(hash, v1);
            hash = mergeRound(hash, v2);
            hash = mergeRound(hash, v3);
            hash = mergeRound(hash, v4);
        } else {
            hash = seed + PRIME64_5;
        }
        hash += length;
        while (offset + 8 <= length) {
            hash ^= round(0, (long) LONG_LE.get(bytes, offset));
            hash = Long.rotateLeft(hash, 27) * PRIME64_1 + PRIME64_4;
            offset += 8;
        }
        if (offset + 4 <= length) {
            hash ^= ((int) INT_LE.get(bytes, offset) & 0xFFFFFFFFL) * PRIME64_1;
            hash = Long.rotateLeft(hash, 23) * PRIME64_2 + PRIME64_3;
            offset += 4;
        }
        while (offset < length) {
            hash ^= (bytes[offset] & 0xFFL) * PRIME64_5;
            hash = Long.rotateLeft(hash, 11) * PRIME64_1;
            offset++;
        }
        return avalanche(hash);
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

    private static long round(long acc, long input) {
        acc += input * PRIME64_2;
        acc = Long.rotateLeft(acc, 31);
        return acc * PRIME64_1;
    }

    private static long mergeRound(long acc, long value) {
        acc ^= round(0, value);
        return acc * PRIME64_1 + PRIME64_4;
    }

    private static long avalanche(long hash) {
        hash ^= hash >>> 33;
        hash *= PRIME64_2;
        hash ^= hash >>> 29;
        hash *= PRIME64_3;
        hash ^= hash >>> 32;
        return hash;
    }
}
