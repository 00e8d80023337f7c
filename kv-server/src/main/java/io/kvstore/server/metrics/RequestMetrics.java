package io.kvstore.server.metrics;

import io.kvstore.server.wire.Routes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.TimeUnit;

/**
 * Counts and times the requests this node answers, by route, method and status code:
 * {@code vertx_http_server_requests_total} and the histogram {@code vertx_http_server_response_time_seconds},
 * the names under which Vert.x's own HTTP server metrics reported them, so dashboards and alerts carry over.
 * It wraps the node's front handler, so it sees every request, those refused before routing too, and times
 * it from its headers' arrival to the end of its response. A request whose connection closes before its
 * response ends is not counted.
 *
 * <p>Vert.x's per-request server metrics are off ({@link NodeMetrics}) because they built tags and looked
 * their meters up in the registry for every request. Here a combination of route, method and status gets
 * its counter and timer once, at its first request; every later one costs three array indexes, an add and a
 * histogram update. Labels stay bounded: routes are {@link Routes#label}'s, methods the nine of RFC
 * 9110 (any other is {@code other}), statuses 100 to 599 (any other is {@code other}).
 */
public final class RequestMetrics implements Handler<HttpServerRequest> {
    private static final HttpMethod[] METHODS = {
        HttpMethod.GET, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.POST, HttpMethod.HEAD,
        HttpMethod.OPTIONS, HttpMethod.PATCH, HttpMethod.TRACE, HttpMethod.CONNECT,
    };
    private static final String OTHER = "other";
    private static final int FIRST_STATUS = 100;
    private static final int LAST_STATUS = 599;
    /** The slot of a status outside 100..599, after those of the statuses. */
    private static final int OTHER_STATUS = LAST_STATUS - FIRST_STATUS + 1;

    private final Handler<HttpServerRequest> next;
    private final MeterRegistry registry;
    /**
     * [route][method][status slot], filled at first use. Filling races are benign: two threads that create
     * the same slot get the same meters from the registry, and {@link Recorder}'s fields are final.
     */
    private final Recorder[][][] recorders = new Recorder[Routes.ALL.size()][METHODS.length + 1][];

    public RequestMetrics(Handler<HttpServerRequest> next, MeterRegistry registry) {
        this.next = next;
        this.registry = registry;
    }

    @Override
    public void handle(HttpServerRequest request) {
        long start = System.nanoTime();
        int route = Routes.index(request.path());
        int method = method(request.method());
        HttpServerResponse response = request.response();
        response.bodyEndHandler(end -> recorder(route, method, response.getStatusCode()).record(System.nanoTime() - start));
        next.handle(request);
    }

    /** The method's index, {@code METHODS.length} for any other. */
    private static int method(HttpMethod method) {
        for (int i = 0; i < METHODS.length; i++) {
            if (METHODS[i] == method) {
                return i;
            }
        }
        for (int i = 0; i < METHODS.length; i++) {
            if (METHODS[i].equals(method)) {
                return i;
            }
        }
        return METHODS.length;
    }

    private Recorder recorder(int route, int method, int status) {
        int slot = status >= FIRST_STATUS && status <= LAST_STATUS ? status - FIRST_STATUS : OTHER_STATUS;
        Recorder[] statuses = recorders[route][method];
        if (statuses == null) {
            statuses = new Recorder[OTHER_STATUS + 1];
            recorders[route][method] = statuses;
        }
        Recorder recorder = statuses[slot];
        if (recorder == null) {
            recorder = new Recorder(registry, Routes.ALL.get(route), method == METHODS.length ? OTHER : METHODS[method].name(),
                    slot == OTHER_STATUS ? OTHER : Integer.toString(status));
            statuses[slot] = recorder;
        }
        return recorder;
    }

    /** The meters of one route, method and status. */
    private static final class Recorder {
        private final Counter requests;
        private final Timer latency;

        Recorder(MeterRegistry registry, String route, String method, String code) {
            requests = Counter.builder("vertx.http.server.requests")
                    .description("Requests answered, by route, method and status code")
                    .tag("route", route).tag("method", method).tag("code", code)
                    .register(registry);
            latency = Timer.builder("vertx.http.server.response.time")
                    .description("Time from a request's arrival to the end of its response")
                    .tag("route", route).tag("method", method).tag("code", code)
                    .register(registry);
        }

        void record(long nanos) {
            requests.increment();
            latency.record(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
