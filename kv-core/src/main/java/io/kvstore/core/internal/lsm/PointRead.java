package io.kvstore.core.internal.lsm;

import io.kvstore.core.Entry;

/**
 * What a point read found: the visible version of the key (null if none), or, for a read that must
 * not block, that answering would have meant reading a table not known to be in memory.
 */
record PointRead(Entry found, boolean needsDisk) {
    /** The answer of a read that must not block and would have had to. */
    static final PointRead NEEDS_DISK = new PointRead(null, true);

    static PointRead of(Entry found) {
        return new PointRead(found, false);
    }
}
