package io.kvstore.server;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Closes connections that send a request too slowly. The idle timeout alone does not: it restarts at
 * every byte, so a client trickling one byte a second holds a connection (and, for a body, its memory
 * budget) for ever. Here a connection has {@code deadline} to deliver each request's headers (counted
 * from when it connected or its previous response ended) and then its body (counted from the headers).
 * The time a response takes, a long range stream say, is not limited here: a client that stops
 * reading one stops the writes, and the idle timeout closes it.
 *
 * <p>One guard per event loop, used only on it, so nothing is shared. Per request it costs a map
 * lookup and three field writes; a sweep every quarter of the deadline (at most once a second) checks
 * the connections against a clock it advances itself, so a slow connection is closed never before the
 * deadline and at most half a deadline after it.
 */
final class SlowClientGuard {
    private final Vertx vertx;
    private final long deadlineMillis;
    private final long sweepMillis;
    private final Map<HttpConnection, Watch> watches = new HashMap<>();
    private long now; // milliseconds since this guard started, advanced by each sweep
    private long timer = -1;

    SlowClientGuard(Vertx vertx, long deadlineMillis) {
        this.vertx = vertx;
        this.deadlineMillis = deadlineMillis;
        this.sweepMillis = Math.max(10, Math.min(1000, deadlineMillis / 4));
    }

    /** Starts the sweeps; call on the event loop the guarded server runs on. */
    void start() {
        long started = System.nanoTime();
        timer = vertx.setPeriodic(sweepMillis, id -> {
            now = (System.nanoTime() - started) / 1_000_000;
            sweep();
        });
    }

    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    void connected(HttpConnection connection) {
        watches.put(connection, new Watch(now));
        connection.closeHandler(v -> watches.remove(connection));
    }

    /** A request's headers arrived: its body now has the deadline. */
    void requestArrived(HttpServerRequest request) {
        Watch watch = watches.get(request.connection());
        if (watch != null) {
            watch.request = request;
            watch.since = now;
            watch.responded = false;
        }
    }

    private void sweep() {
        for (Iterator<Map.Entry<HttpConnection, Watch>> it = watches.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<HttpConnection, Watch> e = it.next();
            Watch watch = e.getValue();
            HttpServerRequest request = watch.request;
            boolean waitingForHeaders = request == null || watch.responded;
            if (request != null && !watch.responded && request.isEnded() && request.response().ended()) {
                // Its response is done; the next request's headers are due from now.
                watch.responded = true;
                watch.since = now;
                continue;
            }
            boolean readingBody = request != null && !watch.responded && !request.isEnded();
            // since is the sweep clock's reading when the phase began, up to one sweep before it did.
            if ((waitingForHeaders || readingBody) && now - watch.since > deadlineMillis + sweepMillis) {
                it.remove();
                e.getKey().close();
            }
        }
    }

    /** What a connection is doing, and since when (guard clock, milliseconds). */
    private static final class Watch {
        HttpServerRequest request; // the latest request, or null before the first
        long since;
        boolean responded; // the latest request's response has ended

        Watch(long since) {
            this.since = since;
        }
    }
}
