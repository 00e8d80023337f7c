package io.kvstore.core.background;

/**
 * What the foreground (requests) did lately, as the {@link BudgetController} reads it once a tick: the
 * node that embeds the store measures it where requests are served.
 */
@FunctionalInterface
public interface ForegroundSignal {
    /** What happened since the previous call; called by one thread at a time. */
    Sample sample();

    /**
     * One interval of foreground work.
     *
     * @param requests          requests that completed in the interval
     * @param meanLatencyNanos  their mean latency (ignored when {@code requests} is 0)
     * @param inFlight          requests being served at the end of the interval: the queue depth
     */
    record Sample(long requests, long meanLatencyNanos, int inFlight) {
        /** An interval without requests. */
        public static final Sample IDLE = new Sample(0, 0, 0);
    }
}
