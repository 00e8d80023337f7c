package io.kvstore.cluster.internal.membership;

/** A cluster map change refused before it started: the HTTP status to answer and why. */
public final class ChangeRefusedException extends RuntimeException {
    private final int status;

    public ChangeRefusedException(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
