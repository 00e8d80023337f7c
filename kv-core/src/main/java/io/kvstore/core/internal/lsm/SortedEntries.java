package io.kvstore.core.internal.lsm;

import io.kvstore.core.Entry;
import io.kvstore.core.internal.table.SsTableWriter;

import java.io.IOException;
import java.util.Iterator;

/**
 * What {@link TableBuilder} writes: a stream of entries in strictly increasing key order, one per key,
 * positioned on one entry at a time, so that a source may hand over entries it never turns into objects
 * ({@link CursorMerge}). Before the first {@link #advance()} and after the last, it is on no entry.
 */
interface SortedEntries {

    /** Moves to the next entry; false once there is none. */
    boolean advance() throws IOException;

    long timestamp();

    boolean isTombstone();

    /** When the current value expires ({@link Entry#NEVER} if it does not, or it is a tombstone). */
    long expiresAtMillis();

    /** Adds the current entry to {@code writer}; as a tombstone of its key and timestamp if {@code asTombstone}. */
    void addTo(SsTableWriter writer, boolean asTombstone) throws IOException;

    /** The entries of {@code entries}, which must be in strictly increasing key order. */
    static SortedEntries of(Iterator<Entry> entries) {
        return new SortedEntries() {
            private Entry current;

            @Override
            public boolean advance() {
                current = entries.hasNext() ? entries.next() : null;
                return current != null;
            }

            @Override
            public long timestamp() {
                return current.timestamp();
            }

            @Override
            public boolean isTombstone() {
                return current.isTombstone();
            }

            @Override
            public long expiresAtMillis() {
                return current.expiresAtMillis();
            }

            @Override
            public void addTo(SsTableWriter writer, boolean asTombstone) throws IOException {
                writer.add(asTombstone && !current.isTombstone() ? Entry.tombstone(current.key(), current.timestamp())
                        : current);
            }
        };
    }
}
