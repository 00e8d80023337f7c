package io.kvstore.server.http;

import io.kvstore.server.wire.Routes;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;

/**
 * The web console's routes: its page and files under {@value Routes#UI}, and the data the page polls,
 * {@value Routes#CONSOLE} (docs/OPERATIONS.md#web-console).
 */
public final class ConsoleHandler implements Handler<HttpServerRequest> {
    private final ClusterConsole cluster;
    private final ConsoleAssets assets = new ConsoleAssets();

    public ConsoleHandler(ClusterConsole cluster) {
        this.cluster = cluster;
    }

    @Override
    public void handle(HttpServerRequest request) {
        if (request.path().equals(Routes.CONSOLE)) {
            cluster.handle(request);
        } else {
            assets.handle(request);
        }
    }
}
