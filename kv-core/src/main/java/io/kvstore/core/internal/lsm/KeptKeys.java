package io.kvstore.core.internal.lsm;

import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A merge's entries (one per key) without those whose key a {@link KeyFilter} rejects, counting the
 * keys left out. One per cleanup; {@link #over} starts each attempt's count afresh.
 */
final class KeptKeys implements Iterator<Entry> {
    private final KeyFilter keep;
    private Iterator<Entry> entries;
    private Entry next;
    private long dropped;

    KeptKeys(KeyFilter keep) {
        this.keep = keep;
    }

    /** This filter over {@code merged}, counting from zero. */
    KeptKeys over(Iterator<Entry> merged) {
        this.entries = merged;
        this.next = null;
        this.dropped = 0;
        return this;
    }

    /** Keys left out of the last stream so far. */
    long dropped() {
        return dropped;
    }

    @Override
    public boolean hasNext() {
        while (next == null && entries.hasNext()) {
            Entry entry = entries.next();
            if (keep.keeps(entry.key())) {
                next = entry;
            } else {
                dropped++;
            }
        }
        return next != null;
    }

    @Override
    public Entry next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Entry entry = next;
        next = null;
        return entry;
    }
}
