package io.kvstore.server;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Replica;
import io.kvstore.core.Entry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves {@link InternalProtocol} from this node's own replica: never forwarded anywhere. */
final class InternalHandler {
    private static final Logger LOG = LoggerFactory.getLogger(InternalHandler.class);
    private final Replica local;
    private final HybridClock clock;
    private final int maxKeyBytes;
    private final int maxBodyBytes;
    private final BodyMemoryBudget bodyBudget;

    InternalHandler(Replica local, HybridClock clock, int maxKeyBytes, int maxBodyBytes, BodyMemoryBudget bodyBudget) {
        this.local = local;
        this.clock = clock;
        this.maxKeyBytes = maxKeyBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.bodyBudget = bodyBudget;
    }

    void handle(HttpServerRequest request) {
        String query = request.query();
        String encodedKey = QueryParameters.text(query, InternalProtocol.KEY_PARAM);
        if (encodedKey == null || encodedKey.isEmpty()) {
            Responses.send(request, 400, "missing " + InternalProtocol.KEY_PARAM);
            return;
        }
        byte[] key = InternalProtocol.decodeKey(encodedKey);
        if (key.length > maxKeyBytes) {
            Responses.send(request, 400, "key of " + key.length + " bytes exceeds the limit of " + maxKeyBytes);
            return;
        }
        HttpMethod method = request.method();
        Context context = Vertx.currentContext();
        if (method == HttpMethod.GET) {
            Future.fromCompletionStage(local.get(key), context).onComplete(answer -> {
                if (answer.failed()) {
                    Responses.failure(request, answer.cause());
                    return;
                }
                Entry entry = answer.result();
                if (entry == null) {
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
            request.response().putHeader("Allow", "GET, PUT, DELETE");
            Responses.send(request, 405, "method " + method + " not allowed on " + InternalProtocol.PATH);
            return;
        }
        long timestamp = InternalProtocol.parseTimestamp(QueryParameters.text(query, InternalProtocol.TIMESTAMP_PARAM));
        if (!clock.accepts(timestamp)) {
            LOG.warn("Refused a replica write from {} timestamped {} ms past this node's clock (more than {} ms)",
                    request.remoteAddress(), HybridClock.millisOf(timestamp) - System.currentTimeMillis(),
                    HybridClock.MAX_AHEAD_MILLIS);
            Responses.send(request, 400, "timestamp " + timestamp + " is more than " + HybridClock.MAX_AHEAD_MILLIS
                    + " ms ahead of this node's clock");
            return;
        }
        // The clock moves only for a write that is stored, not for one refused on its body.
        if (method == HttpMethod.DELETE) {
            clock.observe(timestamp);
            Future.fromCompletionStage(local.upsert(Entry.tombstone(key, timestamp)), context)
                    .onComplete(done -> Responses.completed(request, 202, done.cause()));
        } else {
            BodyReader.read(request, maxBodyBytes, bodyBudget, value -> {
                clock.observe(timestamp);
                return Future.fromCompletionStage(local.upsert(Entry.value(key, value, timestamp)), context)
                        .onComplete(done -> Responses.completed(request, 201, done.cause()));
            });
        }
    }
}
