package io.kvstore.cluster;

/**
 * A replica refused a request because it could not take more work in time (its queues were full): it
 * is alive, and the request may be retried later. A coordinated request that fails because replicas
 * refused it so is answered 503 with {@code Retry-After}, not as a timeout.
 */
public final class ReplicaOverloadedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean answered;

    /** The replica itself refused the request. */
    public ReplicaOverloadedException(String message) {
        this(message, true);
    }

    /**
     * @param answered whether the replica itself refused it; false when its caller did not send it because
     *                 earlier requests to it were still unanswered (a frozen replica looks the same)
     */
    public ReplicaOverloadedException(String message, boolean answered) {
        super(message);
        this.answered = answered;
    }

    /** Whether the replica itself refused the request, so that it is known to be up. */
    public boolean answered() {
        return answered;
    }
}
