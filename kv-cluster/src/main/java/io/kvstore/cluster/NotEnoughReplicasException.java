package io.kvstore.cluster;

/**
 * Fewer than {@code ack} replicas answered successfully (they failed, or the request timed out).
 * The server answers 504. The message names the operation and the counts.
 */
public final class NotEnoughReplicasException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int needed;
    private final int succeeded;
    private final int failed;

    public NotEnoughReplicasException(String operation, int needed, int succeeded, int failed, Throwable cause) {
        super(operation + ": " + succeeded + " of " + needed + " required replicas answered ("
                + failed + " failed" + (cause == null ? "" : ", last error: " + cause) + ")", cause);
        this.needed = needed;
        this.succeeded = succeeded;
        this.failed = failed;
    }

    public int needed() {
        return needed;
    }

    public int succeeded() {
        return succeeded;
    }

    public int failed() {
        return failed;
    }
}
