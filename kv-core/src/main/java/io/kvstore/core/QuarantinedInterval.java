package io.kvstore.core;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;

/**
 * A key interval a store refuses because a table holding it was damaged and moved aside: the tables
 * beneath it may hold older versions and deleted keys of the interval, so no read of it can be trusted
 * until the interval is refetched (from a cluster's other replicas) and {@linkplain Dao#healInterval
 * healed}, or the store restored.
 *
 * @param from        first key of the interval (inclusive); {@code null}: no lower end
 * @param to          end of the interval (exclusive); {@code null}: no upper end
 * @param file        where the damaged table was moved (the store's {@code quarantine} directory)
 * @param reason      what was found: the corruption or the I/O error, with its offset
 * @param sinceMillis when the table was quarantined, in milliseconds since the epoch
 */
public record QuarantinedInterval(byte[] from, byte[] to, Path file, String reason, long sinceMillis) {
    /** How many bytes of a key {@link #describe} shows. */
    private static final int SHOWN_KEY_BYTES = 64;

    public QuarantinedInterval {
        from = from == null ? null : from.clone();
        to = to == null ? null : to.clone();
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(reason, "reason");
    }

    @Override
    public byte[] from() {
        return from == null ? null : from.clone();
    }

    @Override
    public byte[] to() {
        return to == null ? null : to.clone();
    }

    /** Whether {@code key} lies in the interval. */
    public boolean contains(byte[] key) {
        return (from == null || Bytes.compare(key, from) >= 0) && (to == null || Bytes.compare(key, to) < 0);
    }

    /** Whether the interval meets {@code [lo, hi)}; {@code null} bounds are open. */
    public boolean overlaps(byte[] lo, byte[] hi) {
        return (hi == null || from == null || Bytes.compare(from, hi) < 0)
                && (lo == null || to == null || Bytes.compare(lo, to) < 0);
    }

    /** Whether the interval lies wholly within {@code [lo, hi)}; {@code null} bounds are open. */
    public boolean within(byte[] lo, byte[] hi) {
        return (lo == null || from != null && Bytes.compare(from, lo) >= 0)
                && (hi == null || to != null && Bytes.compare(to, hi) <= 0);
    }

    /** The interval as {@code [from, to)}, keys shown as text with other bytes escaped, long keys cut. */
    public String describe() {
        return "[" + (from == null ? "-inf" : show(from)) + ", " + (to == null ? "+inf" : show(to)) + ")";
    }

    /** {@code key} as text: printable ASCII as it is, other bytes as {@code \xNN}, cut after a few dozen bytes. */
    public static String show(byte[] key) {
        StringBuilder out = new StringBuilder("\"");
        int shown = Math.min(key.length, SHOWN_KEY_BYTES);
        for (int i = 0; i < shown; i++) {
            int b = key[i] & 0xFF;
            if (b >= 0x20 && b < 0x7F && b != '"' && b != '\\') {
                out.append((char) b);
            } else {
                out.append(String.format("\\x%02x", b));
            }
        }
        out.append('"');
        if (shown < key.length) {
            out.append("... (").append(key.length).append(" bytes)");
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QuarantinedInterval other && Arrays.equals(from, other.from) && Arrays.equals(to, other.to)
                && file.equals(other.file) && reason.equals(other.reason) && sinceMillis == other.sinceMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(from), Arrays.hashCode(to), file, reason, sinceMillis);
    }

    @Override
    public String toString() {
        return "QuarantinedInterval" + describe() + "{file=" + file + ", reason=" + reason + ", since=" + sinceMillis + '}';
    }
}
