package io.kvstore.cluster.repair;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;

/**
 * The version of a key a store holds, without its value: what two replicas compare before deciding
 * which entries to send. The key array is not copied.
 */
public record KeyVersion(byte[] key, long timestamp, boolean tombstone) {

    /** The version of {@code entry}. */
    public static KeyVersion of(Entry entry) {
        return new KeyVersion(entry.key(), entry.timestamp(), entry.isTombstone());
    }

    /**
     * Whether this version wins over {@code other}, a version of the same key, by the rule of
     * {@link Entry#compareVersions} as far as it can be told without values: the higher timestamp wins
     * and, between equal timestamps, a tombstone wins over a value. (Two values of one timestamp are the
     * same version to repair: trees hash no values.)
     */
    public boolean newerThan(KeyVersion other) {
        if (timestamp != other.timestamp) {
            return timestamp > other.timestamp;
        }
        return tombstone && !other.tombstone;
    }

    @Override
    public String toString() {
        return "KeyVersion{" + Bytes.toDebugString(key) + ", ts=" + timestamp + (tombstone ? ", tombstone}" : "}");
    }
}
