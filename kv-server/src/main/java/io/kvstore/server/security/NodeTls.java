package io.kvstore.server.security;

import io.kvstore.client.TlsEngine;
import io.kvstore.client.internal.VertxTls;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;

/**
 * The node's TLS, with Vert.x's own support, from PEM files: the listener presents {@code --tls-cert}
 * to clients and peers; with {@code --tls-ca} it asks connecting clients for a certificate, refuses the
 * handshake of one that CA did not issue, and {@link Authenticator} refuses internal routes to a
 * connection without one (mutual TLS between nodes, ordinary clients need none). Connections to peers
 * present the same certificate and trust the CA (the JDK's trusted CAs without one). Both run on the
 * configured engine ({@code --tls-engine}).
 */
public final class NodeTls {
    private final Path certificate;
    private final Path key;
    private final Path ca;
    private final TlsEngine engine;

    /**
     * @param certificate the node's PEM certificate chain, or null for no TLS (then the rest is unused)
     * @param key         the PEM private key of {@code certificate}
     * @param ca          the PEM CA that issues client certificates and peers' certificates, or null
     */
    public NodeTls(Path certificate, Path key, Path ca, TlsEngine engine) {
        this.certificate = certificate;
        this.key = key;
        this.ca = ca;
        this.engine = engine;
    }

    public void configureServer(HttpServerOptions options) {
        if (certificate == null) {
            return;
        }
        options.setSsl(true).setKeyCertOptions(keyCert()).setSslEngineOptions(VertxTls.engineOptions(engine));
        if (ca != null) {
            options.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString())).setClientAuth(ClientAuth.REQUEST);
        }
    }

    public void configureClient(HttpClientOptions options) {
        if (certificate == null) {
            return;
        }
        options.setSsl(true).setKeyCertOptions(keyCert()).setSslEngineOptions(VertxTls.engineOptions(engine));
        if (ca != null) {
            options.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString()));
        }
    }

    private PemKeyCertOptions keyCert() {
        return new PemKeyCertOptions().setCertPath(certificate.toString()).setKeyPath(key.toString());
    }
}
