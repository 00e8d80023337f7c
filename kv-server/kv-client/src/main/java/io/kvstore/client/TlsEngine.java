package io.kvstore.client;

import io.kvstore.client.internal.VertxTls;
import io.netty.handler.ssl.OpenSsl;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.SSLEngineOptions;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which implementation of TLS a node or a client runs its connections on. {@link #OPENSSL} is Netty's
 * binding to BoringSSL ({@code io.netty:netty-tcnative-boringssl-static}, which the standalone jar
 * contains and an embedding application adds if it wants it): its handshakes cost a fraction of the
 * JDK's (docs/BENCHMARKS.md). Where its native library does not load, the JDK's engine is used instead
 * and the reason is logged once.
 */
public enum TlsEngine {
    /** The JDK's own {@code SSLEngine}: always there. */
    JDK,
    /** BoringSSL through netty-tcnative, where it loads; else {@link #JDK}. */
    OPENSSL;

    private static final Logger LOG = LoggerFactory.getLogger(TlsEngine.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /** The name on command lines: {@code jdk} or {@code openssl}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The engine of {@code name} ({@code jdk} or {@code openssl}, any case). */
    public static TlsEngine fromName(String name) {
        for (TlsEngine engine : values()) {
            if (engine.id().equalsIgnoreCase(name.trim())) {
                return engine;
            }
        }
        throw new IllegalArgumentException("unknown TLS engine '" + name + "' (expected jdk or openssl)");
    }

    /** The engine connections actually run on: this one, or {@link #JDK} where OpenSSL's library does not load. */
    public TlsEngine effective() {
        if (this == OPENSSL && !OpenSSLEngineOptions.isAvailable()) {
            if (WARNED.compareAndSet(false, true)) {
                LOG.warn("the openssl TLS engine is unavailable, using the JDK's: {}",
                        String.valueOf(OpenSsl.unavailabilityCause()));
            }
            return JDK;
        }
        return this;
    }

    /**
     * Vert.x's options for {@link #effective()}, for {@code setSslEngineOptions} of a server or client.
     *
     * @deprecated the client's API names no Vert.x types; the client sets its connections up itself
     */
    @Deprecated
    public SSLEngineOptions vertxOptions() {
        return VertxTls.engineOptions(this);
    }
}
