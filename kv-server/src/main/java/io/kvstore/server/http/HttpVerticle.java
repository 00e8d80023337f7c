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
    /** How often this listener's event loop measures its own lateness for {@link Overload}. */
    static final long PROBE_MILLIS = 10;

    private final Handler<HttpServerRequest> router;
    private final HttpServerOptions options;
    private final int port;
    private final IntConsumer onListening;
    private final SlowClientGuard guard;
    private final Handler<Throwable> connectionErrors;
    private final Overload overload;
    private HttpServer server;
    private volatile boolean stopping;

    /**
     * {@code router}: the front door, authentication first; {@code guard}: this listener's own, for its
     * event loop; {@code connectionErrors}: told of failures before a connection speaks HTTP (TLS handshakes);
     * {@code overload}: told how late this listener's event loop runs its work.
     */
    public HttpVerticle(Handler<HttpServerRequest> router, HttpServerOptions options, int port, SlowClientGuard guard,
                 Handler<Throwable> connectionErrors, Overload overload, IntConsumer onListening) {
        this.router = router;
        this.overload = overload;
        this.connectionErrors = connectionErrors;
        this.options = options;
        this.port = port;
        this.guard = guard;
        this.onListening = onListening;
    }

    @Override
    public Future<?> start() {
        guard.start();
        probe(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROBE_MILLIS));
        server = vertx.createHttpServer(options)
                .connectionHandler(guard::connected)
                .exceptionHandler(connectionErrors)
                .requestHandler(request -> {
                    guard.requestArrived(request);
                    router.handle(request);
                });
        return server.listen(port).onSuccess(s -> onListening.accept(s.actualPort()));
    }

    /**
     * Tells {@link Overload} how late this event loop runs a timer due at {@code due}: the time a task
     * waits behind the loop's backlog of work.
     */
    private void probe(long due) {
        vertx.setTimer(PROBE_MILLIS, id -> {
            long now = System.nanoTime();
            overload.waited(Math.max(0, now - due));
            if (!stopping) {
                probe(now + TimeUnit.MILLISECONDS.toNanos(PROBE_MILLIS));
            }
        });
    }

    @Override
    public Future<?> stop() {
        stopping = true;
        // The guard keeps watching while requests in flight finish: a trickling one is cut, not waited for.
        return server.shutdown(SHUTDOWN_SECONDS, TimeUnit.SECONDS).onComplete(done -> guard.stop());
    }
}
