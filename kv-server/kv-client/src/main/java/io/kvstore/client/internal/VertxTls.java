package io.kvstore.client.internal;

import io.kvstore.client.TlsEngine;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.SSLEngineOptions;

/** A {@link TlsEngine} as Vert.x takes it: the options a client's and a node's connections are set up with. */
public final class VertxTls {
    private VertxTls() {
    }

    /** Vert.x's options for {@code engine}'s {@linkplain TlsEngine#effective() effective} engine, for {@code setSslEngineOptions}. */
    public static SSLEngineOptions engineOptions(TlsEngine engine) {
        return engine.effective() == TlsEngine.OPENSSL ? new OpenSSLEngineOptions() : new JdkSSLEngineOptions();
    }
}
