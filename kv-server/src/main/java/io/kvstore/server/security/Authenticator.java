package io.kvstore.server.security;

import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one authentication layer, in front of routing: every request is classed by its path and must
 * carry what its class requires before any handler sees it (docs/OPERATIONS.md#security).
 * <ul>
 *   <li>internal ({@value Routes#INTERNAL_PREFIX}...): with a cluster secret, a {@link RequestSignature}
 *   made with it; with {@code --tls-ca}, also a client certificate that CA issued.</li>
 *   <li>admin ({@value Routes#ADMIN_PREFIX}...): a signature made with the cluster secret or
 *   {@code Authorization: Bearer} with the admin token; with neither configured, loopback
 *   connections only.</li>
 *   <li>the web console's static files ({@value Routes#UI}, {@value Routes#UI_PREFIX}...): open.</li>
 *   <li>client (every other path, {@code /v0/status} and {@code /metrics} included): open, unless a
 *   client token is configured; then {@code Bearer} with it, or a node's signature.</li>
 * </ul>
 * No credentials is 401 (with {@code WWW-Authenticate}); credentials that are malformed, oversized,
 * wrong, expired or made with another secret are 403. Either way the connection is closed and nothing is
 * read or applied; refused internal requests are logged (at most every few seconds: they may come by
 * thousands from a misconfigured peer). A signed body is checked against its signed digest as it is read ({@link io.kvstore.server.http.BodyReader}).
 */
public final class Authenticator implements Handler<HttpServerRequest> {
    private static final String BEARER = "Bearer ";

    private static final Logger LOG = LoggerFactory.getLogger(Authenticator.class);
    private final LogLimiter refusals = new LogLimiter();
    private final Handler<HttpServerRequest> next;
    /** Null when no cluster secret is configured. */
    private final RequestSignature cluster;
    /** Null when not configured. */
    private final Secrets adminTokens;
    private final Secrets clientTokens;
    private final boolean internalNeedsCertificate;
    private final LongSupplier clock;

    public Authenticator(Handler<HttpServerRequest> next, RequestSignature cluster, Secrets adminTokens, Secrets clientTokens,
            boolean internalNeedsCertificate, LongSupplier clock) {
        this.next = next;
        this.cluster = cluster;
        this.adminTokens = adminTokens;
        this.clientTokens = clientTokens;
        this.internalNeedsCertificate = internalNeedsCertificate;
        this.clock = clock;
    }

    @Override
    public void handle(HttpServerRequest request) {
        String path = request.path();
        String refusal;
        if (path.startsWith(Routes.INTERNAL_PREFIX)) {
            refusal = internal(request);
        } else if (path.startsWith(Routes.ADMIN_PREFIX)) {
            refusal = admin(request);
        } else {
            // The console's static files hold no data: the page loads, then asks for the token its data calls send.
            refusal = clientTokens == null || Routes.isConsoleFile(path) ? null : credentials(request, clientTokens, "client routes");
        }
        if (refusal == null) {
            next.handle(request);
            return;
        }
        if (path.startsWith(Routes.INTERNAL_PREFIX) && refusals.permit()) {
            String node = request.getHeader(Headers.NODE);
            LOG.warn("refused {} {} from {}{}: {}", request.method(), path, request.remoteAddress(),
                    node == null || node.length() > 256 ? "" : " (node " + node + ")", refusal);
        }
        refuse(request, refusal);
    }

    private String internal(HttpServerRequest request) {
        if (internalNeedsCertificate && !hasPeerCertificate(request)) {
            return "401 internal routes need a TLS client certificate issued by --tls-ca";
        }
        if (cluster == null) {
            return null;
        }
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (authorization == null) {
            return "401 internal routes need a request signed with the cluster secret";
        }
        if (authorization.length() > RequestSignature.MAX_CREDENTIAL_CHARS) {
            return oversized();
        }
        if (!authorization.startsWith(RequestSignature.SCHEME + " ")) {
            return "403 internal routes accept only " + RequestSignature.SCHEME + " signatures";
        }
        return signature(request, authorization);
    }

    private String admin(HttpServerRequest request) {
        if (cluster == null && adminTokens == null) {
            return isLoopback(request) ? null
                    : "403 admin routes answer only loopback connections while neither --admin-token-file nor"
                            + " --cluster-secret-file is configured";
        }
        return credentials(request, adminTokens, "admin routes");
    }

    /** A bearer token among {@code tokens} (may be null: none accepted) or a cluster signature. */
    private String credentials(HttpServerRequest request, Secrets tokens, String what) {
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (authorization == null) {
            return "401 " + what + " need credentials: " + accepted(tokens);
        }
        if (authorization.length() > RequestSignature.MAX_CREDENTIAL_CHARS) {
            return oversized();
        }
        if (authorization.startsWith(RequestSignature.SCHEME + " ") && cluster != null) {
            return signature(request, authorization);
        }
        if (authorization.startsWith(BEARER) && tokens != null) {
            byte[] token = authorization.substring(BEARER.length()).strip().getBytes(StandardCharsets.UTF_8);
            return tokens.matches(token) ? null : "403 wrong token for " + what;
        }
        return "403 " + what + " accept " + accepted(tokens);
    }

    private String accepted(Secrets tokens) {
        if (tokens != null && cluster != null) {
            return "Authorization: Bearer <token> or a node's " + RequestSignature.SCHEME + " signature";
        }
        return tokens != null ? "Authorization: Bearer <token>" : "a node's " + RequestSignature.SCHEME + " signature";
    }

    private String signature(HttpServerRequest request, String authorization) {
        String date = request.getHeader(RequestSignature.DATE_HEADER);
        String digest = request.getHeader(RequestSignature.CONTENT_HEADER);
        if (date == null || digest == null) {
            return "403 a signed request needs " + RequestSignature.DATE_HEADER + " and " + RequestSignature.CONTENT_HEADER;
        }
        long signedAt;
        try {
            signedAt = Decimal.parse(date, RequestSignature.DATE_HEADER);
        } catch (IllegalArgumentException e) {
            return "403 " + RequestSignature.DATE_HEADER + " is not milliseconds since the epoch";
        }
        long skew = clock.getAsLong() - signedAt;
        if (Math.abs(skew) > RequestSignature.WINDOW_MILLIS) {
            return "403 the signature is " + (skew > 0 ? skew + " ms old" : -skew + " ms in the future") + "; accepted within "
                    + RequestSignature.WINDOW_MILLIS + " ms of this node's clock (expired, replayed, or clocks apart)";
        }
        String presented = authorization.substring(RequestSignature.SCHEME.length() + 1).strip();
        if (!cluster.verify(request.method().name(), request.uri(), date, digest, presented)) {
            return "403 the signature does not match: the sender holds another cluster secret, or the request was altered";
        }
        return null;
    }

    private static String oversized() {
        return "403 the Authorization header is longer than " + RequestSignature.MAX_CREDENTIAL_CHARS + " characters";
    }

    private static boolean hasPeerCertificate(HttpServerRequest request) {
        if (!request.connection().isSsl()) {
            return false;
        }
        try {
            return !request.connection().peerCertificates().isEmpty();
        } catch (SSLPeerUnverifiedException e) {
            return false;
        }
    }

    private static boolean isLoopback(HttpServerRequest request) {
        if (request.remoteAddress() == null || request.remoteAddress().hostAddress() == null) {
            return false;
        }
        try {
            // A literal address: no name lookup.
            return InetAddress.getByName(request.remoteAddress().hostAddress()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** {@code refusal} is the status, a space, and the reason. */
    private static void refuse(HttpServerRequest request, String refusal) {
        int status = Integer.parseInt(refusal.substring(0, 3));
        if (status == 401) {
            request.response().putHeader("WWW-Authenticate", "Bearer, " + RequestSignature.SCHEME);
        }
        Responses.sendAndClose(request, status, refusal.substring(4));
    }
}
