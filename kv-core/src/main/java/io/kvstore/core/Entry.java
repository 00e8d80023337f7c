package io.kvstore.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * One version of a key: the key bytes, the value bytes or a tombstone, and a 64-bit timestamp.
 *
 * <p>A {@code null} value marks a tombstone (the key was deleted at {@code timestamp}); an empty
 * array is a legal, present value. Keys order as unsigned bytes. Between two versions of one key,
 * the one with the higher timestamp is newer (see {@link Dao}).
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
