package io.kvstore.server.internode;

import io.kvstore.server.security.NodeSecurity;
import io.kvstore.server.security.RequestSignature;
import io.kvstore.server.security.RequestSigner;
import io.kvstore.server.security.SigningHttpClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.impl.WebClientInternal;
import java.time.Duration;

/**
 * Where every web client that talks to other nodes is made, so that all of them speak TLS when the node
 * does and sign every request when a cluster secret is configured, whatever route they call
 * (docs/OPERATIONS.md#security). Code that talks to peers takes its client from here, never from
 * {@link WebClient#create} or {@link Vertx#createHttpClient}.
 */
public final class InternodeClients {
    private InternodeClients() {
    }

    /**
     * How long an internode connection may sit unused in the pool: half the idle timeout, which the
     * peers are assumed to share, so that this node closes an idle connection before the peer does
     * (a connection the peer closes just as this node sends on it fails its requests).
     */
    public static int keepAliveSeconds(Duration idleTimeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, idleTimeout.toSeconds() / 2));
    }

    /**
     * A web client with {@code options} and {@code pool}, plus the node's TLS settings and signer, whose
     * requests closed before they are sent fail cleanly ({@link ClosedBeforeSendGuard}).
     */
    public static WebClient create(Vertx vertx, NodeSecurity security, WebClientOptions options, PoolOptions pool) {
        security.tls().configureClient(options);
        WebClient client = WebClient.create(vertx, options, pool);
        if (security.clusterSecrets() != null) {
            ((WebClientInternal) client).addInterceptor(
                    new RequestSigner(new RequestSignature(security.clusterSecrets()), System::currentTimeMillis));
        }
        // Last, so that no interceptor runs between its check and the request being sent.
        ((WebClientInternal) client).addInterceptor(new ClosedBeforeSendGuard());
        return client;
    }

    /**
     * An HTTP client with {@code options} plus the node's TLS settings and signer, for answers read as a
     * stream; its requests carry no body ({@link SigningHttpClient}).
     */
    public static HttpClient createHttpClient(Vertx vertx, NodeSecurity security, HttpClientOptions options) {
        security.tls().configureClient(options);
        HttpClient client = vertx.createHttpClient(options);
        return security.clusterSecrets() == null ? client
                : new SigningHttpClient(client, new RequestSignature(security.clusterSecrets()), System::currentTimeMillis);
    }
}
