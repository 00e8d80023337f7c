package io.kvstore.server.membership;

import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.internode.MembershipClient;
import io.vertx.core.http.HttpClosedException;
import javax.net.ssl.SSLException;

/**
 * Why a node started with {@code --join} could not read the cluster map of the member it joins through,
 * in words an operator can act on: another cluster secret, or one side speaking TLS and the other not,
 * fail in ways (a 403, a closed connection, a failed handshake) that say little by themselves.
 */
public final class JoinFailure {
    private JoinFailure() {
    }

    /** The failure of {@code config}'s node to fetch the map of {@code member}, explained. */
    public static IllegalStateException explain(KvServerConfig config, String member, Throwable error) {
        String prefix = "cannot join through " + member + ": ";
        String why;
        if (error instanceof MembershipClient.RefusedException refused
                && (refused.status() == 401 || refused.status() == 403)) {
            why = "it refused this node's request for its cluster map with " + refused.status() + " ("
                    + refused.body() + "); " + (config.security().clusterSecretFile() == null
                    ? "this node has no --cluster-secret-file: start it with the cluster's secret"
                    : "check that this node's --cluster-secret-file holds the cluster's secret"
                            + (config.security().tlsCa() == null ? "" : " and that --tls-ca issued its --tls-cert"));
        } else if (causedBy(error, SSLException.class)) {
            why = "the TLS handshake failed (" + causes(error) + "): " + (config.security().tlsCertificate() == null
                    ? "the member asked for TLS"
                    : "if the cluster's nodes are http:// (no TLS), start this node without --tls-cert and --tls-key;"
                            + " if they are https://, its --tls-ca must trust their certificates and theirs this node's");
        } else if (config.security().tlsCertificate() == null && causedBy(error, HttpClosedException.class)) {
            why = "it closed the connection without an answer, as a TLS port does to plain HTTP: if the cluster's"
                    + " nodes are https://, start this node with --tls-cert, --tls-key (and --tls-ca) as theirs, and"
                    + " name them with https://";
        } else {
            why = "it does not answer with its cluster map: " + causes(error);
        }
        return new IllegalStateException(prefix + why, error);
    }

    private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** The distinct messages along the cause chain, outermost first. */
    private static String causes(Throwable error) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
            if (text.indexOf(message) < 0) {
                text.append(text.length() == 0 ? "" : ": ").append(message);
            }
        }
        return text.toString();
    }
}
