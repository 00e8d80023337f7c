package io.kvstore.core.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * XXH64, as specified by the xxHash project: well mixed (passes SMHasher), fast on short keys, and
 * defined byte for byte, so a value computed here is the same in every process and release. Used by
 * the Bloom filters of the LSM engine and, through {@code io.kvstore.cluster.KeyHash}, for placement.
 *
 * <p>Public on purpose: a cluster places keys by this function, so its output is a contract that
 * stays fixed across releases (pinned by {@code XxHash64Test} against {@code xxhsum -H64}). Thread-safe
 * and allocation-free.
 */
public final class XxHash64 {
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private XxHash64() {
    }

    /** XXH64 of {@code bytes} with seed 0. */
    public static long hash(byte[] bytes) {
        return xxh64(bytes, 0);
    }

    /** XXH64 of {@code bytes[offset, offset + length)} with seed 0: {@link #hash(byte[])} of a copy of them. */
    public static long hash(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return xxh64(bytes, offset, length, 0);
    }

    /** XXH64 of {@code bytes} with the given seed. */
    public static long xxh64(byte[] bytes, long seed) {
        return xxh64(bytes, 0, bytes.length, seed);
    }

    private static long xxh64(byte[] bytes, int offset, int length, long seed) {
        int i = offset;
        int end = offset + length;
        long h;
        if (length >= 32) {
            long v1 = seed + P1 + P2;
            long v2 = seed + P2;
            long v3 = seed;
            long v4 = seed - P1;
            int limit = end - 32;
            do {
                v1 = round(v1, (long) LONGS.get(bytes, i));
                v2 = round(v2, (long) LONGS.get(bytes, i + 8));
                v3 = round(v3, (long) LONGS.get(bytes, i + 16));
                v4 = round(v4, (long) LONGS.get(bytes, i + 24));
                i += 32;
            } while (i <= limit);
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = mergeRound(h, v1);
            h = mergeRound(h, v2);
            h = mergeRound(h, v3);
            h = mergeRound(h, v4);
        } else {
            h = seed + P5;
        }
        h += length;
        for (; i + 8 <= end; i += 8) {
            h ^= round(0, (long) LONGS.get(bytes, i));
            h = Long.rotateLeft(h, 27) * P1 + P4;
        }
        if (i + 4 <= end) {
            h ^= ((int) INTS.get(bytes, i) & 0xFFFFFFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            i += 4;
        }
        for (; i < end; i++) {
            h ^= (bytes[i] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
        }
        return avalanche(h);
    }

    /** A strong 64-bit finaliser (xxHash's avalanche), to derive independent values from one hash. */
    public static long mix(long h) {
        return avalanche(h);
    }

    private static long round(long acc, long input) {
        acc += input * P2;
        acc = Long.rotateLeft(acc, 31);
        return acc * P1;
    }

    private static long mergeRound(long acc, long value) {
        acc ^= round(0, value);
        return acc * P1 + P4;
    }

    private static long avalanche(long h) {
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }
}
