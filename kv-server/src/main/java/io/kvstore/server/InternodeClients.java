package io.kvstore.server;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.impl.WebClientInternal;

/**
 * Where every web client that talks to other nodes is made, so that all of them speak TLS when the node
 * does and sign every request when a cluster secret is configured, whatever route they call
 * (docs/OPERATIONS.md#security). Code that talks to peers takes its client from here, never from
 * {@link WebClient#create} or {@link Vertx#createHttpClient}.
 */
final class InternodeClients {
    private InternodeClients() {
    }

    /**
     * A web client with {@code options} and {@code pool}, plus the node's TLS settings and signer, whose
     * requests closed before they are sent fail cleanly ({@link ClosedBeforeSendGuard}).
     */
    static WebClient create(Vertx vertx, KvServerConfig config, WebClientOptions options, PoolOptions pool) {
        NodeTls.configureClient(config, options);
        WebClient client = WebClient.create(vertx, options, pool);
        if (config.clusterSecrets() != null) {
            ((WebClientInternal) client).addInterceptor(
                    new RequestSigner(new RequestSignature(config.clusterSecrets()), System::currentTimeMillis));
        }
        // Last, so that no interceptor runs between its check and the request being sent.
        ((WebClientInternal) client).addInterceptor(new ClosedBeforeSendGuard());
        return client;
    }

    /**
     * An HTTP client with {@code options} plus the node's TLS settings and signer, for answers read as a
     * stream; its requests carry no body ({@link SigningHttpClient}).
     */
    static HttpClient createHttpClient(Vertx vertx, KvServerConfig config, HttpClientOptions options) {
        NodeTls.configureClient(config, options);
        HttpClient client = vertx.createHttpClient(options);
        return config.clusterSecrets() == null ? client
                : new SigningHttpClient(client, new RequestSignature(config.clusterSecrets()), System::currentTimeMillis);
    }
}
