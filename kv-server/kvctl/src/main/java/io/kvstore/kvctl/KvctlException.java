package io.kvstore.kvctl;

import io.kvstore.client.KvClientException;

/**
 * A command that did not succeed, with the exit code it ends the process with ({@link Kvctl#REFUSED},
 * {@link Kvctl#USAGE} or {@link Kvctl#UNREACHABLE}) and a message for stderr: the node's own reason
 * where it gave one.
 */
final class KvctlException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    KvctlException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    KvctlException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    static KvctlException refused(String message) {
        return new KvctlException(Kvctl.REFUSED, message);
    }

    static KvctlException usage(String message) {
        return new KvctlException(Kvctl.USAGE, message);
    }

    static KvctlException unreachable(String node, Throwable cause) {
        return new KvctlException(Kvctl.UNREACHABLE, "cannot reach " + node + ": " + describe(cause), cause);
    }

    /** The Java client's failure: no answer is {@link Kvctl#UNREACHABLE}, any answer {@link Kvctl#REFUSED}. */
    static KvctlException fromClient(KvClientException e) {
        if (e.status() == 0) {
            return new KvctlException(Kvctl.UNREACHABLE, "cannot reach " + (e.node() == null ? "the node" : e.node()) + ": "
                    + KvctlException.describe(e), e);
        }
        return new KvctlException(Kvctl.REFUSED, e.getMessage(), e);
    }

    int exitCode() {
        return exitCode;
    }

    /** A cause in a few words: its message, or its type for exceptions that carry none (a refused connection). */
    static String describe(Throwable cause) {
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }
}
