package io.kvstore.bench.peers;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How a peer store keeps one of our versions: the peers store plain bytes under a key, so the timestamp,
 * the tombstone flag and the expiry travel in a header in front of the value, as an application
 * embedding one of them would have to do to get replication's "highest version wins".
 *
 * <pre>
 * 8 bytes  timestamp, big-endian
 * 1 byte   flags: 1 = tombstone, 2 = the value expires
 * 8 bytes  expiry in milliseconds since the epoch, only with flag 2
 * n bytes  the value (none for a tombstone)
 * </pre>
 */
final class VersionedValue {
    private static final int TOMBSTONE = 1;
    private static final int EXPIRES = 2;
    private static final int HEAD = Long.BYTES + 1;

    private VersionedValue() {
    }

    static byte[] encode(Entry entry) {
        byte[] value = entry.value();
        boolean expires = value != null && entry.expires();
        ByteBuffer out = ByteBuffer.allocate(HEAD + (expires ? Long.BYTES : 0) + (value == null ? 0 : value.length));
        out.putLong(entry.timestamp());
        out.put((byte) (value == null ? TOMBSTONE : expires ? EXPIRES : 0));
        if (expires) {
            out.putLong(entry.expiresAtMillis());
        }
        if (value != null) {
            out.put(value);
        }
        return out.array();
    }

    /** The version of {@code key} in the first {@code length} bytes of {@code stored}. */
    static Entry decode(byte[] key, byte[] stored, int length) {
        if (length < HEAD || ((stored[Long.BYTES] & EXPIRES) != 0 && length < HEAD + Long.BYTES)) {
            throw new IllegalStateException("Not a versioned value under key " + Bytes.toDebugString(key)
                    + ": " + length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(stored, 0, length);
        long timestamp = in.getLong();
        int flags = in.get();
        if ((flags & TOMBSTONE) != 0) {
            return Entry.tombstone(key, timestamp);
        }
        long expiresAt = (flags & EXPIRES) != 0 ? in.getLong() : Entry.NEVER;
        return Entry.value(key, Arrays.copyOfRange(stored, in.position(), length), timestamp, expiresAt);
    }

    static Entry decode(byte[] key, byte[] stored) {
        return decode(key, stored, stored.length);
    }

    /**
     * Whether {@code entry} wins over the version stored as {@code stored} ({@link Entry#compareVersions}),
     * or replaces it as the same version; the stored value is decoded only when the timestamps tie.
     */
    static boolean winsOver(Entry entry, byte[] stored) {
        if (stored == null) {
            return true;
        }
        long storedTimestamp = stored.length >= Long.BYTES ? ByteBuffer.wrap(stored).getLong() : Long.MIN_VALUE;
        if (entry.timestamp() != storedTimestamp) {
            return entry.timestamp() > storedTimestamp;
        }
        return Entry.compareVersions(entry, decode(entry.key(), stored)) >= 0;
    }
}
