package io.kvstore.core.background;

import java.util.Locale;

/**
 * The kinds of background work that draw from a node's {@link BackgroundBudget}, each with the weight
 * of its share while others have work too: compactions keep reads cheap and writers out of the
 * slowdown, so they weigh most; streams and hint replay restore replicas; repair scans and scrubs are
 * periodic checks that can wait.
 */
public enum BackgroundWork {
    /** Compactions and cleanups of the store (flushes are never limited). */
    COMPACTION(4),
    /** Membership streams: this node's keys sent to the nodes that gain them. */
    STREAM(2),
    /** Hint replay to replicas that came back. */
    HINTS(2),
    /** Anti-entropy scans of the store. */
    REPAIR(1),
    /** Checksum scrubs of the store's tables. */
    SCRUB(1);

    private final int weight;

    BackgroundWork(int weight) {
        this.weight = weight;
    }

    /** This kind's share of the budget relative to the others that have work. */
    public int weight() {
        return weight;
    }

    /** The lower-case name metrics tag it with. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
