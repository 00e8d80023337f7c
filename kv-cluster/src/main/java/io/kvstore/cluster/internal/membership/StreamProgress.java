package io.kvstore.cluster.internal.membership;

/**
 * How one node's stream of a key movement goes, as that node tells it.
 *
 * @param state   where it is
 * @param entries entries sent, once {@link State#DONE}
 * @param reason  why it failed, once {@link State#FAILED}
 */
public record StreamProgress(State state, long entries, String reason) {
    /** Where a stream is. */
    public enum State {
        /** The node has no such stream: never asked, or restarted since. */
        UNKNOWN,
        RUNNING,
        DONE,
        FAILED
    }

    public static final StreamProgress UNKNOWN = new StreamProgress(State.UNKNOWN, 0, null);
    public static final StreamProgress RUNNING = new StreamProgress(State.RUNNING, 0, null);

    public static StreamProgress done(long entries) {
        return new StreamProgress(State.DONE, entries, null);
    }

    public static StreamProgress failed(String reason) {
        return new StreamProgress(State.FAILED, 0, reason);
    }
}
