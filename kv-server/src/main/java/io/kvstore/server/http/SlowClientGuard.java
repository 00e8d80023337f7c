package io.kvstore.server.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Closes connections that send requests too slowly. The idle timeout alone does not: Vert.x restarts it
 * at every piece of a body it receives, so a client trickling a body a byte a second holds a connection,
 * and its share of the body memory budget, for ever (a half-sent header it does time out, as a whole
 * message it has not seen). Here a connection has the larger of the request and idle timeouts to
 * deliver a request's headers, counted from when it connected or its previous response ended (so that
 * a keep-alive connection is never cut before the idle timeout), and then the request timeout for its
 * body, counted from its headers. The time the server takes to respond, a long range stream say, is
 * not limited: a client that stops reading one stops the writes, and the idle timeout closes it.
 *
 * <p>The server speaks HTTP/1.1 only (no h2c), where Vert.x hands a connection's next request to the
 * handler only once the previous response has ended, pipelined or not: a connection has at most one
 * request to watch. A response counts as ended once {@code end()} is called; its last bytes may still
 * be draining to a slow reader, and closing the connection flushes them first. One guard per event
 * loop, used only on it. Per request it costs a map lookup, a clock read and two field writes; a sweep
 * every quarter of the shorter deadline (at most once a second) checks the connections, so a slow
 * connection is closed never before its deadline and at most a quarter of it (or a second) after.
 */
public final class SlowClientGuard {
    private final Vertx vertx;
    private final long headersDeadlineNanos;
    private final long bodyDeadlineNanos;
    private final long sweepMillis;
    private final Map<HttpConnection, Watch> watches = new HashMap<>();
    private final LongAdder closed;
    private long timer = -1;

    /** {@code closed}: counts the connections this guard closes (shared by the node's guards). */
    public SlowClientGuard(Vertx vertx, Duration requestTimeout, Duration idleTimeout, LongAdder closed) {
        this.vertx = vertx;
        this.closed = closed;
        long body = clampedMillis(requestTimeout);
        long headers = Math.max(body, clampedMillis(idleTimeout));
        this.bodyDeadlineNanos = body * 1_000_000;
        this.headersDeadlineNanos = headers * 1_000_000;
        this.sweepMillis = Math.max(10, Math.min(1000, body / 4));
    }

    private static long clampedMillis(Duration timeout) {
        return Math.max(1, Math.min(timeout.toMillis(), Integer.MAX_VALUE)); // at most ~24 days
    }

    /** Starts the sweeps; call on the event loop the guarded server runs on. */
    void start() {
        timer = vertx.setPeriodic(sweepMillis, id -> sweep(System.nanoTime()));
    }

    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    void connected(HttpConnection connection) {
        watches.put(connection, new Watch(System.nanoTime()));
        connection.closeHandler(v -> watches.remove(connection));
    }

    /** A request's headers arrived: its body now has the deadline. */
    void requestArrived(HttpServerRequest request) {
        Watch watch = watches.get(request.connection());
        if (watch != null) {
            watch.request = request;
            watch.since = System.nanoTime();
        }
    }

    private void sweep(long now) {
        for (Iterator<Map.Entry<HttpConnection, Watch>> it = watches.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<HttpConnection, Watch> e = it.next();
            Watch watch = e.getValue();
            HttpServerRequest request = watch.request;
            if (request != null) {
                HttpServerResponse response = request.response();
                if (response.closed()) { // the connection is gone (its close handler may be someone else's)
                    it.remove();
                    continue;
                }
                if (response.ended()) { // the next request's headers are due
                    watch.request = null;
                    watch.since = now; // noticed at a sweep: later than it happened, never earlier
                    continue;
                }
                if (request.isEnded()) {
                    continue; // the server is answering: not the client's time
                }
            }
            // Waiting for headers (no request) or for the rest of a body.
            if (now - watch.since > (request == null ? headersDeadlineNanos : bodyDeadlineNanos)) {
                it.remove();
                closed.increment();
                e.getKey().close();
            }
        }
    }

    /** A connection's request being received or answered (null: none), and since when. */
    private static final class Watch {
        HttpServerRequest request;
        long since;

        Watch(long since) {
            this.since = since;
        }
    }
}
