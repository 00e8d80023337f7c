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
 * <p>A value may carry an absolute expiry, in milliseconds since the epoch of the store's clock
 * ({@link DaoOptions#clock()}): from that instant on it reads as a tombstone of its own timestamp, so an
 * older version on another replica cannot come back when it expires, and a restart changes nothing.
 *
 * <p>Entries do not copy the arrays they are given; callers must not modify them afterwards.
 */
public final class Entry {
    private final byte[] key;
    private final byte[] value;
    private final long timestamp;
    private final long expiresAtMillis;

    /** {@link #expiresAtMillis()} of an entry that never expires. */
    public static final long NEVER = Long.MAX_VALUE;

    private Entry(byte[] key, byte[] value, long timestamp, long expiresAtMillis) {
        this.key = Objects.requireNonNull(key, "key");
        this.value = value;
        this.timestamp = timestamp;
        this.expiresAtMillis = expiresAtMillis;
    }

    /** A present value (possibly empty) written at {@code timestamp}, which never expires. */
    public static Entry value(byte[] key, byte[] value, long timestamp) {
        return new Entry(key, Objects.requireNonNull(value, "value (use tombstone() to delete)"), timestamp, NEVER);
    }

    /**
     * A present value written at {@code timestamp} that reads as a tombstone of {@code timestamp} from
     * {@code expiresAtMillis} (milliseconds since the epoch) on; {@link #NEVER} for none.
     */
    public static Entry value(byte[] key, byte[] value, long timestamp, long expiresAtMillis) {
        return new Entry(key, Objects.requireNonNull(value, "value (use tombstone() to delete)"), timestamp,
                expiresAtMillis);
    }

    /** A deletion of {@code key} at {@code timestamp}. */
    public static Entry tombstone(byte[] key, long timestamp) {
        return new Entry(key, null, timestamp, NEVER);
    }

    /**
     * Orders two versions of one key: positive if {@code a} wins over {@code b}, negative if {@code b}
     * wins, zero if they are the same version. The higher timestamp wins; at equal timestamps a
     * tombstone wins over a value, and between two values the larger one as unsigned bytes (a longer
     * value wins over its own prefix). The rule depends only on the two versions, never on the order
     * in which they arrive, so replicas that receive the same writes in any order agree.
     *
     * <p>Between two values of equal timestamps of which one expires, the one expiring first wins
     * before their bytes are compared: an expired value is a tombstone of its timestamp, so this keeps
     * the winner the same before and after the expiry.
     */
    public static int compareVersions(Entry a, Entry b) {
        int byHeads = compareVersionHeads(a.timestamp, a.value == null, a.expiresAtMillis,
                b.timestamp, b.value == null, b.expiresAtMillis);
        if (byHeads != 0 || a.value == null) {
            return byHeads;
        }
        return Arrays.compareUnsigned(a.value, b.value);
    }

    /**
     * {@link #compareVersions} as far as it goes without the values: by timestamp, then tombstone, then
     * expiry. Zero if only the values can tell (two values of one timestamp and one expiry) or both are
     * tombstones of one timestamp. For code that holds versions in another form than an {@code Entry}; a
     * tombstone's expiry is {@link #NEVER}.
     */
    public static int compareVersionHeads(long timestampA, boolean tombstoneA, long expiresAtMillisA,
                                          long timestampB, boolean tombstoneB, long expiresAtMillisB) {
        int byTimestamp = Long.compare(timestampA, timestampB);
        if (byTimestamp != 0) {
            return byTimestamp;
        }
        if (tombstoneA || tombstoneB) {
            return (tombstoneA ? 1 : 0) - (tombstoneB ? 1 : 0);
        }
        return Long.compare(expiresAtMillisB, expiresAtMillisA);
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

    /** When this value expires, in milliseconds since the epoch; {@link #NEVER} if it does not. */
    public long expiresAtMillis() {
        return expiresAtMillis;
    }

    /** Whether this is a value with an expiry. */
    public boolean expires() {
        return expiresAtMillis != NEVER;
    }

    /** Whether this value has expired at {@code nowMillis}: its expiry is at or before it. */
    public boolean isExpiredAt(long nowMillis) {
        return expiresAtMillis <= nowMillis;
    }

    /** This entry as visible at {@code nowMillis}: itself, or once expired a tombstone of its key and timestamp. */
    public Entry asOf(long nowMillis) {
        return expiresAtMillis <= nowMillis ? tombstone(key, timestamp) : this;
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
        return timestamp == other.timestamp && expiresAtMillis == other.expiresAtMillis
                && Arrays.equals(key, other.key) && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * Arrays.hashCode(key) + Arrays.hashCode(value)) + Long.hashCode(timestamp))
                + Long.hashCode(expiresAtMillis);
    }

    @Override
    public String toString() {
        return "Entry{key=" + Bytes.toDebugString(key)
                + (value == null ? ", tombstone" : ", value=" + value.length + " bytes")
                + ", ts=" + timestamp + (expires() ? ", expiresAt=" + expiresAtMillis : "") + '}';
    }
}
