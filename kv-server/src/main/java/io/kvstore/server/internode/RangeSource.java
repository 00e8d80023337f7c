package io.kvstore.server.internode;

import io.kvstore.core.Entry;

/**
 * One node's versions of a key range (tombstones included, keys ascending) as a cluster range merges
 * them: a few entries buffered at a time, more on {@link #demand()}. Used on one event loop only.
 */
public interface RangeSource {

    /** Where the entries come from, for messages. */
    String node();

    /** Starts reading; {@code listener} hears of new entries, of the end and of a failure. */
    void start(Listener listener);

    /** The next entry, or null if none is buffered (see {@link #ended()}). */
    Entry peek();

    /** Takes the next entry. */
    Entry poll();

    /** Whether the range is complete: nothing follows the entries buffered. */
    boolean ended();

    /** Asks for more entries; the listener's {@code ready} follows when some arrived or the range ended. */
    void demand();

    /** Stops reading and releases what the source holds; nothing is heard of it afterwards. Idempotent. */
    void close();

    /** What a merge hears from its sources, on its event loop. */
    interface Listener {
        /** {@code source} has entries buffered, or ended. */
        void ready(RangeSource source);

        /** {@code source} cannot complete its range; it is closed. */
        void failed(RangeSource source, Throwable cause);
    }
}
