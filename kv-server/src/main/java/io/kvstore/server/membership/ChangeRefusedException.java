package io.kvstore.server.membership;

/** A cluster map change refused before it started: the status to answer and why. */
final class ChangeRefusedException extends RuntimeException {
    private final int status;

    ChangeRefusedException(int status, String message) {
        super(message);
        this.status = status;
    }

    int status() {
        return status;
    }
}
