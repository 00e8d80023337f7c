package io.kvstore.cluster.internal.repair;

import io.kvstore.core.Bytes;
import io.kvstore.core.QuarantinedInterval;

/**
 * The keys an exchange covers, {@code [from, to)} in unsigned byte order: both sides build their trees
 * and list their versions over these keys only, crossed with the hash segments as always. A
 * {@code null} bound is open; {@link #ALL}, both open, is the whole key space. {@code from == to} is
 * an empty interval, whose exchange compares nothing. The arrays are not copied.
 *
 * @param from first key (inclusive); {@code null}: no lower end
 * @param to   end (exclusive); {@code null}: no upper end
 */
public record KeyInterval(byte[] from, byte[] to) {
    /** The whole key space: an exchange as it was before exchanges had an interval. */
    public static final KeyInterval ALL = new KeyInterval(null, null);

    /** @throws IllegalArgumentException if {@code from} sorts after {@code to} */
    public KeyInterval {
        if (from != null && to != null && Bytes.compare(from, to) > 0) {
            throw new IllegalArgumentException("key interval starts at " + QuarantinedInterval.show(from)
                    + ", after its end " + QuarantinedInterval.show(to));
        }
    }

    /** The interval a store refuses, as the keys to refetch. */
    public static KeyInterval of(QuarantinedInterval refused) {
        return new KeyInterval(refused.from(), refused.to());
    }

    /** Whether this is the whole key space. */
    public boolean isAll() {
        return from == null && to == null;
    }

    /** Whether {@code key} lies in the interval. */
    public boolean contains(byte[] key) {
        return (from == null || Bytes.compare(key, from) >= 0) && (to == null || Bytes.compare(key, to) < 0);
    }

    /** Whether {@code key} lies at or past the interval's end. */
    boolean endsBefore(byte[] key) {
        return to != null && Bytes.compare(key, to) >= 0;
    }

    /** The larger of two lower bounds ({@code null}: open, the smallest). */
    static byte[] maxFrom(byte[] a, byte[] b) {
        return a == null ? b : b == null ? a : Bytes.compare(a, b) >= 0 ? a : b;
    }

    /** The smaller of two upper bounds ({@code null}: open, the largest). */
    static byte[] minTo(byte[] a, byte[] b) {
        return a == null ? b : b == null ? a : Bytes.compare(a, b) <= 0 ? a : b;
    }

    /** As {@code [from, to)}, keys shown as text. */
    public String describe() {
        return "[" + (from == null ? "-inf" : QuarantinedInterval.show(from)) + ", "
                + (to == null ? "+inf" : QuarantinedInterval.show(to)) + ")";
    }

    @Override
    public String toString() {
        return describe();
    }
}
