package io.kvstore.core.internal.util;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import java.util.List;

/** The check every engine makes of a batch it is asked to ingest. */
public final class SortedBatch {
    private SortedBatch() {
    }

    /**
     * @throws IllegalArgumentException naming the first key out of order, if the keys of {@code entries}
     *                                  are not strictly increasing
     * @throws NullPointerException     if the list or an entry is null
     */
    public static void requireStrictlyIncreasing(List<Entry> entries) {
        byte[] previous = null;
        for (int i = 0; i < entries.size(); i++) {
            byte[] key = entries.get(i).key();
            if (previous != null && Bytes.ORDER.compare(previous, key) >= 0) {
                throw new IllegalArgumentException("entry " + i + " of " + entries.size() + " (key '"
                        + Bytes.toDebugString(key) + "') does not follow key '" + Bytes.toDebugString(previous)
                        + "': a batch to ingest must be in strictly increasing key order");
            }
            previous = key;
        }
    }
}
