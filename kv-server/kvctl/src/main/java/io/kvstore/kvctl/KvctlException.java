package io.kvstore.kvctl;

import io.kvstore.client.KvClientException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;

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
        KvctlException untrusted = untrusted(node, cause);
        return untrusted != null ? untrusted
                : new KvctlException(Kvctl.UNREACHABLE, "cannot reach " + node + ": " + describe(cause), cause);
    }

    /**
     * {@link Kvctl#REFUSED} saying that {@code node}'s certificate is not trusted, if the TLS handshake
     * failed on it ({@code cause} or one of its causes); else null. The node answered, so it is not
     * unreachable: kvctl refused it.
     */
    static KvctlException untrusted(String node, Throwable cause) {
        for (Throwable error = cause; error != null; error = error.getCause()) {
            if (error instanceof CertificateException || error instanceof CertPathBuilderException
                    || error instanceof CertPathValidatorException) {
                return new KvctlException(Kvctl.REFUSED, "the certificate of " + (node == null ? "the node" : node)
                        + " is not trusted (" + describe(error) + "): give --tls-ca with the CA that issued the nodes'"
                        + " certificates", cause);
            }
        }
        return null;
    }

    /** The Java client's failure: no answer is {@link Kvctl#UNREACHABLE}, any answer {@link Kvctl#REFUSED}. */
    static KvctlException fromClient(KvClientException e) {
        if (e.status() == 0) {
            KvctlException untrusted = untrusted(e.node(), e);
            if (untrusted != null) {
                return untrusted;
            }
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
