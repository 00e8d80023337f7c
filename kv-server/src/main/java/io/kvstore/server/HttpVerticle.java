package io.kvstore.server;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;

/**
 * One HTTP listener on one event loop, with its {@link SlowClientGuard}; Vert.x spreads connections over
 * the instances sharing a port.
 */
final class HttpVerticle extends VerticleBase {
    /** How long a stopping server lets requests in flight finish. */
    private static final long SHUTDOWN_SECONDS = 10;

    private final RequestRouter router;
    private final HttpServerOptions options;
    private final int port;
    private final IntConsumer onListening;
    private final Duration requestTimeout;
    private final Duration idleTimeout;
    private final LongAdder slowConnectionsClosed;
    private HttpServer server;
    private SlowClientGuard guard;

    /** {@code requestTimeout}, {@code idleTimeout}, {@code slowConnectionsClosed}: see {@link SlowClientGuard}. */
    HttpVerticle(RequestRouter router, HttpServerOptions options, int port, Duration requestTimeout, Duration idleTimeout,
            LongAdder slowConnectionsClosed, IntConsumer onListening) {
        this.router = router;
        this.options = options;
        this.port = port;
        this.requestTimeout = requestTimeout;
        this.idleTimeout = idleTimeout;
        this.slowConnectionsClosed = slowConnectionsClosed;
        this.onListening = onListening;
    }

    @Override
    public Future<?> start() {
        guard = new SlowClientGuard(vertx, requestTimeout, idleTimeout, slowConnectionsClosed);
        guard.start();
        server = vertx.createHttpServer(options)
                .connectionHandler(guard::connected)
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
