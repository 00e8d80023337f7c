package io.kvstore.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * One version of a key: the key bytes, the value bytes or a tombstone, and a 64-bit timestamp.
 *
 * <p>A {@code null} value marks a tombstone (the key was deleted at {@code timestamp}); an empty
 * array is a legal, present value. Keys order as unsigned bytes. Between two versions of one key,
 * {@link #compareVersions} says which one wins, the same way on every replica and in every engine.
 *
 * <p>Entries do not copy the arrays they are given; callers must not modify them afterwards.
 */
public final class Entry {
    private final byte[] key;
    private final byte[] value;
    private final long timestamp;

    private Entry(byte[] key, byte[] value, long timestamp) {
        this.key = Objects.requireNonNull(key, "key");
        this.value = value;
        this.timestamp = timestamp;
    }

    /** A present value (possibly empty) written at {@code timestamp}. */
    public static Entry value(byte[] key, byte[] value, long timestamp) {
        return new Entry(key, Objects.requireNonNull(value, "value (use tombstone() to delete)"), timestamp);
    }

    /** A deletion of {@code key} at {@code timestamp}. */
    public static Entry tombstone(byte[] key, long timestamp) {
        return new Entry(key, null, timestamp);
    }

    /**
     * Orders two versions of one key: positive if {@code a} wins over {@code b}, negative if {@code b}
     * wins, zero if they are the same version. The higher timestamp wins; at equal timestamps a
     * tombstone wins over a value, and between two values the larger one as unsigned bytes (a longer
     * value wins over its own prefix). The rule depends only on the two versions, never on the order
     * in which they arrive, so replicas that receive the same writes in any order agree.
     */
    public static int compareVersions(Entry a, Entry b) {
        int byTimestamp = Long.compare(a.timestamp, b.timestamp);
        if (byTimestamp != 0) {
            return byTimestamp;
        }
        if (a.value == null || b.value == null) {
            return (a.value == null ? 1 : 0) - (b.value == null ? 1 : 0);
        }
        return Arrays.compareUnsigned(a.value, b.value);
    }

    /**
     * The winner of two versions of one key by {@link #compareVersions}; either may be {@code null}
     * (no version), and {@code a} is returned when they are the same version.
     */
    public static Entry newerOf(Entry a, Entry b) {
        if (b == null) {
            return a;
        }
        if (a == null) {
            return b;
        }
        return compareVersions(a, b) >= 0 ? a : b;
    }

    public byte[] key() {
        return key;
    }

    /** The value, or {@code null} for a tombstone. */
    public byte[] value() {
        return value;
    }

    public long timestamp() {
        return timestamp;
    }

    public boolean isTombstone() {
        return value == null;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Entry)) {
            return false;
        }
        Entry other = (Entry) o;
        return timestamp == other.timestamp && Arrays.equals(key, other.key) && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(key) + Arrays.hashCode(value)) + Long.hashCode(timestamp);
    }

    @Override
    public String toString() {
        return "Entry{key=" + Bytes.toDebugString(key)
                + (value == null ? ", tombstone" : ", value=" + value.length + " bytes")
                + ", ts=" + timestamp + '}';
    }
}
