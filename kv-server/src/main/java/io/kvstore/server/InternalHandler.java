package io.kvstore.server;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Replica;
import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/** Serves {@link InternalProtocol} from this node's own replica: never forwarded anywhere. */
final class InternalHandler {
    private final Replica local;
    private final HybridClock clock;
    private final int maxBodyBytes;

    InternalHandler(Replica local, HybridClock clock, int maxBodyBytes) {
        this.local = local;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    void handle(HttpServerRequest request) {
        String encodedKey = request.getParam("key");
        if (encodedKey == null || encodedKey.isEmpty()) {
            Responses.send(request, 400, "missing key");
            return;
        }
        byte[] key = InternalProtocol.decodeKey(encodedKey);
        HttpMethod method = request.method();
        if (method == HttpMethod.GET) {
            local.get(key).whenComplete((entry, error) -> {
                if (error != null) {
                    Responses.failure(request, error);
                } else if (entry == null) {
                    Responses.send(request, 404, "not found");
                } else {
                    request.response().setStatusCode(200)
                            .putHeader(InternalProtocol.TIMESTAMP_HEADER, Long.toString(entry.timestamp()))
                            .putHeader(InternalProtocol.TOMBSTONE_HEADER, Boolean.toString(entry.isTombstone()))
                            .end(entry.isTombstone() ? Buffer.buffer() : Buffer.buffer(entry.value()));
                }
            });
            return;
        }
        if (method != HttpMethod.PUT && method != HttpMethod.DELETE) {
            Responses.send(request, 405, "method " + method + " not allowed on " + InternalProtocol.PATH);
            return;
        }
        long timestamp = Long.parseLong(require(request, "ts"));
        clock.observe(timestamp);
        if (method == HttpMethod.DELETE) {
            local.upsert(Entry.tombstone(key, timestamp)).whenComplete((done, error) -> Responses.completed(request, 202, error));
        } else {
            RequestBodies.read(request, maxBodyBytes, body -> local.upsert(Entry.value(key, body.getBytes(), timestamp))
                    .whenComplete((done, error) -> Responses.completed(request, 201, error)));
        }
    }

    private static String require(HttpServerRequest request, String name) {
        String value = request.getParam(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing " + name);
        }
        return value;
    }

}
