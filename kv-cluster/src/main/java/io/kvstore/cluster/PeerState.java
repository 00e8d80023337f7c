package io.kvstore.cluster;

/** Whether a node looks reachable to this one, as {@link FailureDetector} judges it. */
public enum PeerState {
    /** It answered recently, or has not failed often enough in a row to be judged down. */
    UP,
    /** Its last requests and probes failed: writes to it are hinted, hints wait until it is up again. */
    DOWN;

    /** The lower-case name used in {@code /v0/status}. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
