package io.kvstore.cluster;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * Fewer than {@code ack} replicas answered: enough of them failed that success became impossible, or
 * the request timed out first. The server answers it with 504, or with 503 if a replica refused it for
 * want of capacity ({@link #overloaded()}).
 */
public final class NotEnoughReplicasException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int needed;
    private final int got;
    private final transient List<Throwable> failures;

    /**
     * @param needed   the {@code ack} of the request
     * @param got      how many replicas had answered successfully when it gave up
     * @param failures the replica errors seen so far, in arrival order (copied)
     * @param cause    the deciding cause: a {@link java.util.concurrent.TimeoutException} on timeout,
     *                 else the first replica failure
     */
    public NotEnoughReplicasException(String message, int needed, int got, List<Throwable> failures, Throwable cause) {
        super(message, cause);
        this.needed = needed;
        this.got = got;
        this.failures = List.copyOf(failures);
        for (Throwable failure : this.failures) {
            if (failure != cause) {
                addSuppressed(failure);
            }
        }
    }

    /** The {@code ack} of the failed request. */
    public int needed() {
        return needed;
    }

    /** How many replicas had answered successfully. */
    public int got() {
        return got;
    }

    /** The replica errors seen before the request gave up. */
    public List<Throwable> failures() {
        return failures;
    }

    /**
     * Whether a replica refused the request for want of capacity ({@link ReplicaOverloadedException}, or
     * this node's storage queue rejecting it): the cluster is overloaded rather than unreachable.
     */
    public boolean overloaded() {
        for (Throwable failure : failures) {
            if (isOverload(failure)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code error} is a refusal for want of capacity: a replica's, or an executor's rejection. */
    public static boolean isOverload(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof ReplicaOverloadedException || cause instanceof RejectedExecutionException
                || cause instanceof NotEnoughReplicasException quorum && quorum.overloaded();
    }
}
