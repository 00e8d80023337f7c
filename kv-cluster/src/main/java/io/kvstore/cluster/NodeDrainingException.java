package io.kvstore.cluster;

/**
 * A replica was left out of a request because its node said it is stopping
 * ({@link FailureDetector#draining}); a write it misses is hinted.
 */
public final class NodeDrainingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@code node}: the URL of the draining node. */
    public NodeDrainingException(String node) {
        super(node + " is draining (stopping), so it was not asked", null, false, false);
    }
}
