package io.kvstore.server.http;

import io.kvstore.cluster.NotEnoughReplicasException;
import io.kvstore.cluster.ReplicaEndpoint;
import io.kvstore.cluster.TimestampOutOfBoundsException;
import io.kvstore.core.Entry;
import io.kvstore.server.internode.EpochFence;
import io.kvstore.server.internode.MapDivergence;
import io.kvstore.server.wire.BatchCodec;
import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.KeyLimit;
import io.kvstore.server.wire.QueryParameters;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP adapter of this node's {@link ReplicaEndpoint}: decodes internal requests with
 * {@link InternalCodec}, hands them to the endpoint, encodes its answers. Never forwards anything.
 * Requests are fenced by map epoch ({@link EpochFence}): this node first catches up with a newer
 * epoch a request carries (waiting at most {@value #CATCH_UP_MILLIS} ms, then serving it as before),
 * and refuses with 421 a request whose older map sends a key to other replicas than this node's map.
 */
public final class InternalHandler {
    /** How long a request of a newer epoch waits for this node to hold that map. */
    static final long CATCH_UP_MILLIS = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(InternalHandler.class);
    private final ReplicaEndpoint endpoint;
    private final KeyLimit keys;
    private final int maxBodyBytes;
    private final BodyMemoryBudget bodyBudget;
    private final EpochFence fence;
    /** Null: requests are not checked against this node's map. */
    private final MapDivergence divergence;
    private final BooleanSupplier draining;

    public InternalHandler(ReplicaEndpoint endpoint, int maxKeyBytes, int maxBodyBytes, BodyMemoryBudget bodyBudget) {
        this(endpoint, maxKeyBytes, maxBodyBytes, bodyBudget, EpochFence.NONE, null, () -> false);
    }

    /**
     * @param fence      this node's epoch: told the epoch each request carries, so that a node behind pulls the
     *                   newer map, and asked whether a request's older map sends its key elsewhere
     * @param divergence refuses (409) the requests of a peer on another map of this node's epoch
     * @param draining   whether this node is stopping ({@link io.kvstore.server.membership.NodeDrain})
     */
    public InternalHandler(ReplicaEndpoint endpoint, int maxKeyBytes, int maxBodyBytes, BodyMemoryBudget bodyBudget,
                    EpochFence fence, MapDivergence divergence, BooleanSupplier draining) {
        this.draining = draining;
        this.fence = fence;
        this.divergence = divergence;
        this.endpoint = endpoint;
        this.keys = new KeyLimit(maxKeyBytes);
        this.maxBodyBytes = maxBodyBytes;
        this.bodyBudget = bodyBudget;
    }

    /** 204, or 503 while this node drains: a peer's probe must not find it back before its restart. */
    void ping(HttpServerRequest request) {
        if (draining.getAsBoolean()) {
            Responses.send(request, 503, "this node is draining (stopping)");
        } else {
            request.response().setStatusCode(204).end();
        }
    }

    void handle(HttpServerRequest request) {
        if (refused(request)) {
            return;
        }
        String query = request.query();
        byte[] key = keys.check(InternalCodec.requestKey(query), "key");
        HttpMethod method = request.method();
        Context context = Vertx.currentContext();
        long epoch = requestEpoch(request);
        if (method == HttpMethod.GET) {
            caughtUp(epoch, context).onComplete(ready -> {
                if (misdirected(request, epoch, key)) {
                    return;
                }
                Future.fromCompletionStage(endpoint.read(key), context).onComplete(answer -> {
                    if (answer.failed()) {
                        Responses.failure(request, answer.cause());
                    } else {
                        InternalCodec.answerRead(request.response(), answer.result());
                    }
                });
            });
            return;
        }
        if (method == HttpMethod.DELETE) {
            Entry tombstone = InternalCodec.requestEntry(method, key, query, null);
            caughtUp(epoch, context).onComplete(ready -> {
                if (!misdirected(request, epoch, key)) {
                    apply(request, tombstone, context);
                }
            });
        } else if (method == HttpMethod.PUT) {
            // The timestamp and expiry are checked before the body is read: a malformed one is refused at once.
            InternalCodec.parseTimestamp(QueryParameters.text(query, InternalCodec.TIMESTAMP_PARAM));
            InternalCodec.parseExpiry(QueryParameters.text(query, InternalCodec.EXPIRY_PARAM), InternalCodec.EXPIRY_PARAM);
            BodyReader.read(request, maxBodyBytes, bodyBudget, value -> {
                Entry entry = InternalCodec.requestEntry(method, key, query, value);
                return caughtUp(epoch, context).compose(ready ->
                        misdirected(request, epoch, key) ? Future.succeededFuture() : apply(request, entry, context));
            });
        } else {
            request.response().putHeader("Allow", "GET, PUT, DELETE");
            Responses.send(request, 405, "method " + method + " not allowed on " + Routes.INTERNAL_ENTITY);
        }
    }

    /**
     * Several writes in one request ({@link Routes#WRITES}), each applied on its own and
     * answered with its own outcome; a key or value over this node's limits refuses that entry only.
     */
    void handleWrites(HttpServerRequest request) {
        serveBatch(request, BatchCodec::writes, Entry::key, (entry, context) -> {
            String overLimit = overLimit(entry);
            return overLimit != null ? Future.<Void>failedFuture(overLimit) : apply(entry, context, request);
        }, (answer, stored) -> BatchCodec.done(answer));
    }

    /**
     * Several reads in one request ({@link Routes#READS}), each answered with its own outcome;
     * a key over this node's limit refuses that read only.
     */
    void handleReads(HttpServerRequest request) {
        serveBatch(request, BatchCodec::reads, key -> key, (key, context) -> keys.refusal(key, "key") != null
                        ? Future.<Entry>failedFuture(keys.refusal(key, "key"))
                        : Future.fromCompletionStage(endpoint.read(key), context),
                (answer, entry) -> entry == null ? BatchCodec.done(answer) : BatchCodec.version(answer, entry));
    }

    /**
     * Serves a batched route: refuses what is not a POST or comes from a peer on another map, reads and
     * {@code parse}s the body (malformed: 400), makes each {@code call} and answers their outcomes in order.
     */
    private <T, R> void serveBatch(HttpServerRequest request, Function<byte[], List<T>> parse, Function<T, byte[]> keyOf,
                                   BiFunction<T, Context, Future<R>> call, BiFunction<Buffer, R, Buffer> succeeded) {
        if (request.method() != HttpMethod.POST) {
            request.response().putHeader("Allow", "POST");
            Responses.send(request, 405, "method " + request.method() + " not allowed on " + request.path());
            return;
        }
        if (refused(request)) {
            return;
        }
        Context context = Vertx.currentContext();
        long epoch = requestEpoch(request);
        BodyReader.read(request, BatchCodec.MAX_BODY_BYTES, bodyBudget, body -> {
            List<T> calls;
            try {
                calls = parse.apply(body);
            } catch (IllegalArgumentException e) {
                Responses.send(request, 400, e.getMessage());
                return Future.succeededFuture();
            }
            return caughtUp(epoch, context).compose(ready -> {
                // One refused key refuses the batch: the coordinator retries all of it on the newer map.
                for (T one : calls) {
                    if (misdirected(request, epoch, keyOf.apply(one))) {
                        return Future.succeededFuture();
                    }
                }
                return serveCalls(request, calls, call, succeeded, context);
            });
        });
    }

    /** Makes each call of a batch and answers their outcomes in order. */
    private static <T, R> Future<?> serveCalls(HttpServerRequest request, List<T> calls,
                                               BiFunction<T, Context, Future<R>> call,
                                               BiFunction<Buffer, R, Buffer> succeeded, Context context) {
        List<Future<R>> outcomes = new ArrayList<>(calls.size());
        for (T one : calls) {
            Future<R> outcome;
            try {
                outcome = call.apply(one, context);
            } catch (RuntimeException e) {
                outcome = Future.failedFuture(e);
            }
            outcomes.add(outcome);
        }
        return answerBatch(request, outcomes, succeeded);
    }

    /** Answers once every call of a batch completed: the outcome of each, in order. */
    private static <R> Future<?> answerBatch(HttpServerRequest request, List<Future<R>> outcomes,
                                             BiFunction<Buffer, R, Buffer> succeeded) {
        return Future.join(outcomes).onComplete(done -> {
            Buffer answer = BatchCodec.answer(outcomes.size());
            for (Future<R> outcome : outcomes) {
                if (outcome.succeeded()) {
                    succeeded.apply(answer, outcome.result());
                } else {
                    String reason = String.valueOf(outcome.cause().getMessage());
                    BatchCodec.refused(answer, NotEnoughReplicasException.isOverload(outcome.cause())
                            ? BatchCodec.OVERLOADED + reason : reason);
                }
            }
            request.response().setStatusCode(200).end(answer);
        });
    }

    private String overLimit(Entry entry) {
        String refusal = keys.refusal(entry.key(), "key");
        if (refusal != null) {
            return refusal;
        }
        if (!entry.isTombstone() && entry.value().length > maxBodyBytes) {
            return "value of " + entry.value().length + " bytes exceeds the limit of " + maxBodyBytes;
        }
        return null;
    }

    /**
     * Observes the request's epoch and stamps this node's on the answer; refuses the request (409, answered
     * here) if its sender holds another map of this epoch.
     */
    private boolean refused(HttpServerRequest request) {
        observeEpoch(request);
        request.response().putHeader(Headers.EPOCH, Long.toString(fence.epoch()));
        if (divergence != null) {
            String refusal = divergence.refusal(request.getHeader(Headers.EPOCH),
                    request.getHeader(Headers.MAP_FINGERPRINT), request.getHeader(Headers.NODE));
            if (refusal != null) {
                Responses.send(request, 409, refusal);
                return true;
            }
        }
        return false;
    }

    private void observeEpoch(HttpServerRequest request) {
        long epoch = requestEpoch(request);
        if (epoch >= 0) {
            fence.observe(epoch, request.getHeader(Headers.NODE));
        }
    }

    /**
     * The map epoch the request carries; -1 if it carries none (a node of a version without epochs, a
     * tool): such a request is served as before fencing, without a check.
     *
     * @throws IllegalArgumentException (400) if the epoch is not a decimal number
     */
    private static long requestEpoch(HttpServerRequest request) {
        String epoch = request.getHeader(Headers.EPOCH);
        return epoch == null ? -1 : Decimal.parse(epoch, Headers.EPOCH);
    }

    /** Completes once this node holds the map of {@code epoch}, or after {@link #CATCH_UP_MILLIS}. */
    private Future<Void> caughtUp(long epoch, Context context) {
        if (epoch <= fence.epoch()) {
            return Future.succeededFuture();
        }
        return Future.fromCompletionStage(fence.reached(epoch).toCompletableFuture().copy()
                .completeOnTimeout(null, CATCH_UP_MILLIS, TimeUnit.MILLISECONDS), context);
    }

    /** Answers 421 with this node's epoch if its map moved {@code key} since the request's {@code epoch}. */
    private boolean misdirected(HttpServerRequest request, long epoch, byte[] key) {
        if (epoch < 0) {
            return false;
        }
        long moved = fence.movedSince(epoch, key);
        if (moved < 0) {
            return false;
        }
        request.response().putHeader(Headers.EPOCH, Long.toString(moved));
        Responses.send(request, InternalCodec.STALE_EPOCH, "the cluster map of epoch " + moved
                + " moved this key's replicas since epoch " + epoch + "; retry on the newer map");
        return true;
    }

    private Future<Void> apply(HttpServerRequest request, Entry entry, Context context) {
        return apply(entry, context, request).onComplete(done -> Responses.completed(request, InternalCodec.writeStatus(entry), done.cause()));
    }

    private Future<Void> apply(Entry entry, Context context, HttpServerRequest request) {
        Future<Void> applied;
        try {
            applied = Future.fromCompletionStage(endpoint.apply(entry), context);
        } catch (RuntimeException e) {
            applied = Future.failedFuture(e);
        }
        return applied.onFailure(error -> {
            if (error instanceof TimestampOutOfBoundsException) {
                LOG.warn("Refused a replica write from {}: {}", request.remoteAddress(), error.getMessage());
            }
        });
    }
}
