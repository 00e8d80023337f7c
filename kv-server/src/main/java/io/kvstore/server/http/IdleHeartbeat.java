package io.kvstore.server.http;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.time.Duration;

/**
 * Keeps the connection of a request whose answer comes only at the end of long work (a repair, a
 * cleanup) from being closed as idle: every half idle timeout it carries an interim {@code 103} answer
 * without hints, which HTTP clients skip (RFC 9110 15.2). Stops by itself once the answer is sent.
 */
public final class IdleHeartbeat {
    private IdleHeartbeat() {
    }

    /**
     * Starts the heartbeat of {@code request}'s response; returns the timer to cancel when the answer goes
     * out (-1: none). HTTP/1.0 has no interim answers, so its requests get none and may be closed as idle.
     */
    public static long start(Vertx vertx, HttpServerRequest request, Duration idleTimeout) {
        if (request.version() == HttpVersion.HTTP_1_0) {
            return -1;
        }
        HttpServerResponse response = request.response();
        return vertx.setPeriodic(Math.max(100, idleTimeout.toMillis() / 2), id -> {
            if (response.ended() || response.closed()) {
                vertx.cancelTimer(id);
            } else {
                response.writeEarlyHints(MultiMap.caseInsensitiveMultiMap());
            }
        });
    }
}
