package io.kvstore.server.security;

import io.vertx.core.Handler;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs why TLS handshakes on this node's port fail (plain HTTP sent to a TLS port, a certificate
 * {@code --tls-ca} did not issue), at most every few seconds: a misconfigured peer retries by thousands.
 * Without it the node would close such connections without a word, and only the other side would know.
 */
public final class HandshakeFailureLog implements Handler<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeFailureLog.class);
    private final LogLimiter limiter = new LogLimiter();

    @Override
    public void handle(Throwable error) {
        if (isTls(error) && limiter.permit()) {
            LOG.warn("a TLS handshake on this node's port failed: {} (a client speaking plain HTTP to this TLS port,"
                    + " or a certificate --tls-ca did not issue)", message(error));
        }
    }

    private static boolean isTls(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    private static String message(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }
}
