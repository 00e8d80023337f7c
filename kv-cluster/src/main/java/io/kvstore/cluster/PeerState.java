package io.kvstore.cluster;

/** Whether a node looks reachable to this one, as {@link FailureDetector} judges it. */
public enum PeerState {
    /** It answered recently, or has not failed often enough in a row to be judged down. */
    UP,
    /** Its last requests and probes failed: writes to it are hinted, hints wait until it is up again. */
    DOWN,
    /**
     * It said it is stopping ({@link FailureDetector#draining}): coordinators send it nothing and hint its
     * writes until a probe finds it serving again, after its restart.
     */
    DRAINING;

    /** The lower-case name used in {@code /v0/status}. */
    public String id() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
