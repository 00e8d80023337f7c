package io.kvstore.cluster.internal.repair;

import io.kvstore.cluster.KeyHash;
import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;

/**
 * The version of a key a store holds, without its value: what two replicas compare before deciding
 * which entries to send. The key array is not copied.
 *
 * @param valueHash a hash of the value ({@link #valueHashOf}), 0 for a tombstone: two values written
 *                  with one timestamp (two coordinators can issue the same one) differ in it
 */
public record KeyVersion(byte[] key, long timestamp, boolean tombstone, long valueHash) {
    private static final long VALUE_SEED = 0x3C6EF372FE94F82BL;

    /** The version of {@code entry}. */
    public static KeyVersion of(Entry entry) {
        return new KeyVersion(entry.key(), entry.timestamp(), entry.isTombstone(), valueHashOf(entry));
    }

    /** The hash of {@code entry}'s value that versions and repair trees carry; 0 for a tombstone. */
    public static long valueHashOf(Entry entry) {
        return entry.isTombstone() ? 0 : KeyHash.hash64(entry.value(), VALUE_SEED);
    }

    /**
     * Whether this version wins over {@code other}, a version of the same key, by the rule of
     * {@link Entry#compareVersions} as far as it can be told without values: the higher timestamp wins
     * and, between equal timestamps, a tombstone wins over a value. Two different values of one
     * timestamp are neither newer: see {@link #conflictsWith}.
     */
    public boolean newerThan(KeyVersion other) {
        return Entry.compareVersionHeads(timestamp, tombstone, Entry.NEVER, other.timestamp, other.tombstone, Entry.NEVER) > 0;
    }

    /**
     * Whether this version and {@code other} are two different values of one timestamp. Which one wins
     * ({@link Entry#compareVersions}: the larger value) takes the values to tell, so each side sends its
     * own and every store keeps the winner.
     */
    public boolean conflictsWith(KeyVersion other) {
        return timestamp == other.timestamp && !tombstone && !other.tombstone && valueHash != other.valueHash;
    }

    @Override
    public String toString() {
        return "KeyVersion{" + Bytes.toDebugString(key) + ", ts=" + timestamp + (tombstone ? ", tombstone}" : "}");
    }
}
