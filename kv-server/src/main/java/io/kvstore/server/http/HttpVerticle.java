package io.kvstore.server.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * One HTTP listener on one event loop, with its {@link SlowClientGuard}; Vert.x spreads connections over
 * the instances sharing a port.
 */
public final class HttpVerticle extends VerticleBase {
    /** How long a stopping server lets requests in flight finish. */
    private static final long SHUTDOWN_SECONDS = 10;

    private final Handler<HttpServerRequest> router;
    private final HttpServerOptions options;
    private final int port;
    private final IntConsumer onListening;
    private final SlowClientGuard guard;
    private final Handler<Throwable> connectionErrors;
    private HttpServer server;

    /**
     * {@code router}: the front door, authentication first; {@code guard}: this listener's own, for its
     * event loop; {@code connectionErrors}: told of failures before a connection speaks HTTP (TLS handshakes).
     */
    public HttpVerticle(Handler<HttpServerRequest> router, HttpServerOptions options, int port, SlowClientGuard guard,
                 Handler<Throwable> connectionErrors, IntConsumer onListening) {
        this.router = router;
        this.connectionErrors = connectionErrors;
        this.options = options;
        this.port = port;
        this.guard = guard;
        this.onListening = onListening;
    }

    @Override
    public Future<?> start() {
        guard.start();
        server = vertx.createHttpServer(options)
                .connectionHandler(guard::connected)
                .exceptionHandler(connectionErrors)
                .requestHandler(request -> {
                    guard.requestArrived(request);
                    router.handle(request);
                });
        return server.listen(port).onSuccess(s -> onListening.accept(s.actualPort()));
    }

    @Override
    public Future<?> stop() {
        // The guard keeps watching while requests in flight finish: a trickling one is cut, not waited for.
        return server.shutdown(SHUTDOWN_SECONDS, TimeUnit.SECONDS).onComplete(done -> guard.stop());
    }
}
