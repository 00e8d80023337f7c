package io.kvstore.server;

import io.kvstore.cluster.ReplicaEndpoint;
import io.kvstore.cluster.TimestampOutOfBoundsException;
import io.kvstore.core.Entry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP adapter of this node's {@link ReplicaEndpoint}: decodes internal requests with
 * {@link InternalCodec}, hands them to the endpoint, encodes its answers. Never forwards anything.
 */
final class InternalHandler {
    private static final Logger LOG = LoggerFactory.getLogger(InternalHandler.class);
    private final ReplicaEndpoint endpoint;
    private final int maxKeyBytes;
    private final int maxBodyBytes;
    private final BodyMemoryBudget bodyBudget;
    private final EpochListener epochs;
    /** Null: requests are not checked against this node's map. */
    private final MapDivergence divergence;

    InternalHandler(ReplicaEndpoint endpoint, int maxKeyBytes, int maxBodyBytes, BodyMemoryBudget bodyBudget) {
        this(endpoint, maxKeyBytes, maxBodyBytes, bodyBudget, EpochListener.NONE, null);
    }

    /**
     * @param epochs     told the map epoch each request carries, so that a node behind pulls the newer map
     * @param divergence refuses (409) the requests of a peer on another map of this node's epoch
     */
    InternalHandler(ReplicaEndpoint endpoint, int maxKeyBytes, int maxBodyBytes, BodyMemoryBudget bodyBudget,
                    EpochListener epochs, MapDivergence divergence) {
        this.epochs = epochs;
        this.divergence = divergence;
        this.endpoint = endpoint;
        this.maxKeyBytes = maxKeyBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.bodyBudget = bodyBudget;
    }

    void ping(HttpServerRequest request) {
        request.response().setStatusCode(204).end();
    }

    void handle(HttpServerRequest request) {
        observeEpoch(request);
        if (divergence != null) {
            String refusal = divergence.refusal(request.getHeader(MembershipHandler.EPOCH_HEADER),
                    request.getHeader(MembershipHandler.FINGERPRINT_HEADER), request.getHeader(MembershipHandler.NODE_HEADER));
            if (refusal != null) {
                Responses.send(request, 409, refusal);
                return;
            }
        }
        String query = request.query();
        byte[] key = InternalCodec.requestKey(query);
        if (key.length > maxKeyBytes) {
            Responses.send(request, 400, "key of " + key.length + " bytes exceeds the limit of " + maxKeyBytes);
            return;
        }
        HttpMethod method = request.method();
        Context context = Vertx.currentContext();
        if (method == HttpMethod.GET) {
            Future.fromCompletionStage(endpoint.read(key), context).onComplete(answer -> {
                if (answer.failed()) {
                    Responses.failure(request, answer.cause());
                } else {
                    InternalCodec.answerRead(request.response(), answer.result());
                }
            });
            return;
        }
        if (method == HttpMethod.DELETE) {
            apply(request, InternalCodec.requestEntry(method, key, query, null), context);
        } else if (method == HttpMethod.PUT) {
            // The timestamp and expiry are checked before the body is read: a malformed one is refused at once.
            InternalCodec.parseTimestamp(QueryParameters.text(query, InternalCodec.TIMESTAMP_PARAM));
            InternalCodec.parseExpiry(QueryParameters.text(query, InternalCodec.EXPIRY_PARAM), InternalCodec.EXPIRY_PARAM);
            BodyReader.read(request, maxBodyBytes, bodyBudget, value ->
                    apply(request, InternalCodec.requestEntry(method, key, query, value), context));
        } else {
            request.response().putHeader("Allow", "GET, PUT, DELETE");
            Responses.send(request, 405, "method " + method + " not allowed on " + InternalCodec.PATH);
        }
    }

    private void observeEpoch(HttpServerRequest request) {
        String epoch = request.getHeader(MembershipHandler.EPOCH_HEADER);
        if (epoch != null) {
            try {
                epochs.observe(Long.parseLong(epoch), request.getHeader(MembershipHandler.NODE_HEADER));
            } catch (NumberFormatException e) {
                // Only a hint that a newer map exists; the request itself is served as usual.
            }
        }
    }

    private Future<Void> apply(HttpServerRequest request, Entry entry, Context context) {
        return Future.fromCompletionStage(endpoint.apply(entry), context).onComplete(done -> {
            if (done.cause() instanceof TimestampOutOfBoundsException) {
                LOG.warn("Refused a replica write from {}: {}", request.remoteAddress(), done.cause().getMessage());
            }
            Responses.completed(request, InternalCodec.writeStatus(entry), done.cause());
        });
    }
}
