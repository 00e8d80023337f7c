package io.kvstore.server.metrics;

import io.kvstore.server.wire.Responses;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * {@code GET /metrics}: every meter in the Prometheus text exposition format (version 0.0.4), or 404
 * when the node runs with {@code --metrics off}. The text is rendered on a worker thread: it walks
 * every histogram, which an event loop should not spend its time on.
 */
public final class MetricsHandler {
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final NodeMetrics metrics;
    private final StorageMetrics storage;
    private final PeerMetrics peers;

    /** {@code metrics}, {@code storage} and {@code peers} null: the node keeps no metrics. */
    public MetricsHandler(NodeMetrics metrics, StorageMetrics storage, PeerMetrics peers) {
        this.metrics = metrics;
        this.storage = storage;
        this.peers = peers;
    }

    public void handle(HttpServerRequest request) {
        if (request.method() != HttpMethod.GET) {
            request.response().putHeader("Allow", "GET");
            Responses.send(request, 405, "method " + request.method() + " not allowed on /metrics");
            return;
        }
        if (metrics == null) {
            Responses.send(request, 404, "metrics are off on this node (--metrics off)");
            return;
        }
        Vertx.currentContext().executeBlocking(() -> {
            storage.refresh();
            peers.refresh();
            return metrics.scrape();
        }, false).onComplete(scraped -> {
            if (scraped.failed()) {
                Responses.failure(request, scraped.cause());
            } else {
                request.response().putHeader("Content-Type", CONTENT_TYPE).end(scraped.result());
            }
        });
    }
}
