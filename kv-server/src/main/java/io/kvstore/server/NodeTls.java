package io.kvstore.server;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.http.HttpClientOptions;

/**
 * The node's TLS, with Vert.x's own support, from PEM files: the listener presents {@code --tls-cert}
 * to clients and peers; with {@code --tls-ca} it asks connecting clients for a certificate, refuses the
 * handshake of one that CA did not issue, and {@link Authenticator} refuses internal routes to a
 * connection without one (mutual TLS between nodes, ordinary clients need none). Connections to peers
 * present the same certificate and trust the CA (the JDK's trusted CAs without one). Both run on the
 * {@link KvServerConfig#tlsEngine() configured engine}.
 */
final class NodeTls {
    private NodeTls() {
    }

    static void configureServer(KvServerConfig config, HttpServerOptions options) {
        if (config.tlsCertificate() == null) {
            return;
        }
        options.setSsl(true).setKeyCertOptions(keyCert(config)).setSslEngineOptions(config.tlsEngine().vertxOptions());
        if (config.tlsCa() != null) {
            options.setTrustOptions(new PemTrustOptions().addCertPath(config.tlsCa().toString()))
                    .setClientAuth(ClientAuth.REQUEST);
        }
    }

    static void configureClient(KvServerConfig config, HttpClientOptions options) {
        if (config.tlsCertificate() == null) {
            return;
        }
        options.setSsl(true).setKeyCertOptions(keyCert(config)).setSslEngineOptions(config.tlsEngine().vertxOptions());
        if (config.tlsCa() != null) {
            options.setTrustOptions(new PemTrustOptions().addCertPath(config.tlsCa().toString()));
        }
    }

    private static PemKeyCertOptions keyCert(KvServerConfig config) {
        return new PemKeyCertOptions().setCertPath(config.tlsCertificate().toString())
                .setKeyPath(config.tlsKey().toString());
    }
}
