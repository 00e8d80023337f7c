package io.kvstore.server;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/** One HTTP listener on one event loop; Vert.x spreads connections over the instances sharing a port. */
final class HttpVerticle extends VerticleBase {
    /** How long a stopping server lets requests in flight finish. */
    private static final long SHUTDOWN_SECONDS = 10;

    private final RequestRouter router;
    private final HttpServerOptions options;
    private final int port;
    private final IntConsumer onListening;
    private HttpServer server;

    HttpVerticle(RequestRouter router, HttpServerOptions options, int port, IntConsumer onListening) {
        this.router = router;
        this.options = options;
        this.port = port;
        this.onListening = onListening;
    }

    @Override
    public Future<?> start() {
        server = vertx.createHttpServer(options).requestHandler(router);
        return server.listen(port).onSuccess(s -> onListening.accept(s.actualPort()));
    }

    @Override
    public Future<?> stop() {
        return server.shutdown(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
    }
}
