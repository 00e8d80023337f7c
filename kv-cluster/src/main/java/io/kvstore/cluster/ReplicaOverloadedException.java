package io.kvstore.cluster;

/**
 * A replica refused a request because it could not take more work in time (its queues were full): it
 * is alive, and the request may be retried later. A coordinated request that fails because replicas
 * refused it so is answered 503 with {@code Retry-After}, not as a timeout.
 */
public final class ReplicaOverloadedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ReplicaOverloadedException(String message) {
        super(message);
    }
}
