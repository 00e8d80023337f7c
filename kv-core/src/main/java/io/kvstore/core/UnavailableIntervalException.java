package io.kvstore.core;

/**
 * A read refused because it falls in a {@link QuarantinedInterval}: a table holding the key was
 * damaged and moved aside, and what the store still holds of the interval may be older versions or
 * keys since deleted. Names the table's file and the interval. Every key outside the store's
 * quarantined intervals is served as usual.
 */
public final class UnavailableIntervalException extends CorruptionException {
    private static final long serialVersionUID = 1L;

    private final transient QuarantinedInterval interval;

    public UnavailableIntervalException(QuarantinedInterval interval) {
        super("key interval " + interval.describe() + " is unavailable: its table was quarantined to "
                + interval.file() + " (" + interval.reason() + "); it is refused until the interval is"
                + " refetched and healed or the store restored", interval.file(), -1);
        this.interval = interval;
    }

    /** The refused interval, with the quarantined table and what was wrong with it. */
    public QuarantinedInterval interval() {
        return interval;
    }
}
