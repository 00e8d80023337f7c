package io.kvstore.cluster.internal.membership;

/**
 * How one node's stream of a key movement goes, as that node tells it. The counts are of the stream's
 * run on that node since it last started (a node that restarts resumes after its checkpoint and counts
 * from there).
 *
 * @param state       where it is
 * @param keysScanned keys of its store the stream has read so far
 * @param keysToScan  keys it has to read, estimated when it started from its tables' entries (versions
 *                    included, so mostly above the keys read; memtables not); 0 when it reads nothing, -1
 *                    when its store keeps no count
 * @param entries     entries sent so far (an entry sent to two nodes counts twice)
 * @param bytes       bytes of those entries (keys, values, 16 bytes of timestamp and flags each)
 * @param reason      why it failed, once {@link State#FAILED}
 */
public record StreamProgress(State state, long keysScanned, long keysToScan, long entries, long bytes, String reason) {
    /** Where a stream is. */
    public enum State {
        /** The node has no such stream: never asked, or restarted since. */
        UNKNOWN,
        RUNNING,
        DONE,
        FAILED
    }

    public static final StreamProgress UNKNOWN = new StreamProgress(State.UNKNOWN, 0, 0, 0, 0, null);
    public static final StreamProgress RUNNING = new StreamProgress(State.RUNNING, 0, 0, 0, 0, null);

    /** A finished stream that sent {@code entries} entries, with no other count. */
    public static StreamProgress done(long entries) {
        return new StreamProgress(State.DONE, 0, 0, entries, 0, null);
    }

    public static StreamProgress failed(String reason) {
        return new StreamProgress(State.FAILED, 0, 0, 0, 0, reason);
    }

    /** This progress in {@code state}, with the same counts. */
    public StreamProgress in(State state) {
        return new StreamProgress(state, keysScanned, keysToScan, entries, bytes, reason);
    }
}
