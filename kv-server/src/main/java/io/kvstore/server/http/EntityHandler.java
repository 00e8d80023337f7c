package io.kvstore.server.http;

import io.kvstore.cluster.NotEnoughReplicasException;
import io.kvstore.cluster.Quorum;
import io.kvstore.cluster.StaleEpochException;
import io.kvstore.core.Entry;
import io.kvstore.server.internode.EpochFence;
import io.kvstore.server.internode.Topology;
import io.kvstore.server.metrics.CoordinatorMetrics;
import io.kvstore.server.wire.KeyLimit;
import io.kvstore.server.wire.QueryParameters;
import io.kvstore.server.wire.Responses;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * {@code /v0/entity}: GET 200/404, PUT 201, DELETE 202 once {@code ack} replicas answered, else 504 (503 +
 * Retry-After when replicas refused it for want of capacity);
 * other methods 405; missing or empty {@code id}, bad {@code ack}/{@code from}, a key over the limit or a
 * {@code ttl} that is not a whole number of seconds in [1, {@value #MAX_TTL_SECONDS}] or not on a PUT
 * 400. A PUT's {@code ttl} becomes an absolute expiry on this node's wall clock, which the write
 * carries to every replica. The coordinator answers on whatever thread delivered the deciding reply; the answer is brought
 * back to the connection's event loop before the response is written.
 *
 * <p>A request that failed because replicas refused it as sent on an older cluster map (421,
 * {@link StaleEpochException}) is sent again, with the same version if it writes, once this node holds
 * the newer map: up to {@value #MAX_ATTEMPTS} attempts, the later ones started within the replica timeout
 * of the first. A client never sees the refusal, only the outcome on the newer map.
 */
public final class EntityHandler {
    /** Attempts of one request, the first included, when replicas keep refusing it as sent on an older map. */
    static final int MAX_ATTEMPTS = 3;
    /** Longest {@code ttl}: a hundred years of 365 days. */
    static final long MAX_TTL_SECONDS = 3_153_600_000L;
    private static final String TTL_PARAM = "ttl";
    /** The current topology: one volatile read per request. */
    private final Supplier<Topology> topology;
    private final KeyLimit keys;
    private final int maxBodyBytes;
    private final BodyMemoryBudget bodyBudget;
    private final CoordinatorMetrics outcomes;
    private final Overload overload;
    /** Waited on for the newer map a replica's refusal names. */
    private final EpochFence fence;
    private final long retryWithinNanos;

    /**
     * @param fence       this node's epoch, waited on when a replica refuses a request as sent on an older map
     * @param retryWithin how long after a request's first attempt it may be sent again on a newer map
     */
    public EntityHandler(Supplier<Topology> topology, EpochFence fence, Duration retryWithin, int maxKeyBytes,
                  int maxBodyBytes, BodyMemoryBudget bodyBudget, Overload overload, CoordinatorMetrics outcomes) {
        this.fence = fence;
        this.overload = overload;
        this.retryWithinNanos = retryWithin.toNanos();
        this.outcomes = outcomes;
        this.topology = topology;
        this.keys = new KeyLimit(maxKeyBytes);
        this.maxBodyBytes = maxBodyBytes;
        this.bodyBudget = bodyBudget;
    }

    void handle(HttpServerRequest request) {
        HttpMethod method = request.method();
        if (method != HttpMethod.GET && method != HttpMethod.PUT && method != HttpMethod.DELETE) {
            request.response().putHeader("Allow", "GET, PUT, DELETE");
            Responses.send(request, 405, "method " + method + " not allowed on /v0/entity");
            return;
        }
        String query = request.query();
        byte[] key = QueryParameters.bytes(query, "id");
        if (key == null) {
            Responses.send(request, 400, "missing id");
            return;
        }
        String refusal = keys.refusal(key, "id");
        if (refusal != null) {
            Responses.send(request, 400, refusal);
            return;
        }
        String ttl = QueryParameters.text(query, TTL_PARAM);
        if (ttl != null && method != HttpMethod.PUT) {
            Responses.send(request, 400, "ttl applies to PUT only, not to " + method);
            return;
        }
        long ttlSeconds = ttl == null ? 0 : parseTtl(ttl);
        if (ttlSeconds < 0) {
            Responses.send(request, 400, "ttl must be a whole number of seconds in [1, " + MAX_TTL_SECONDS
                    + "], got '" + ttl + "'");
            return;
        }
        Topology coordinator = topology.get();
        String ack = QueryParameters.text(query, "ack");
        String from = QueryParameters.text(query, "from");
        Quorum quorum = Quorum.parse(ack, from, coordinator.replicationFactor(), coordinator.clusterSize());
        Context context = Vertx.currentContext();
        Coordinated coordinated = new Coordinated(ack, from, context, System.nanoTime() + retryWithinNanos);
        if (method == HttpMethod.GET) {
            coordinated.<Entry>run(coordinator, quorum, (on, q) -> on.get(key, q), 1).onComplete(answer -> {
                record(method, answer.cause());
                if (answer.failed()) {
                    Responses.failure(request, answer.cause());
                    return;
                }
                Entry entry = answer.result();
                if (entry == null || entry.isTombstone() || entry.isExpiredAt(System.currentTimeMillis())) {
                    Responses.send(request, 404, "not found");
                } else {
                    request.response().setStatusCode(200).end(Buffer.buffer(entry.value()));
                }
            });
        } else if (method == HttpMethod.PUT) {
            BodyReader.read(request, maxBodyBytes, bodyBudget, value -> write(request, coordinated, coordinator, quorum,
                    () -> coordinator.version(key, value, expiry(ttlSeconds)), 201));
        } else {
            write(request, coordinated, coordinator, quorum, () -> coordinator.tombstone(key), 202);
        }
    }

    /** Counts how a coordinated request ended, and a refusal of it by overloaded replicas as a shed request. */
    private void record(HttpMethod method, Throwable failure) {
        outcomes.record(method, failure);
        if (failure != null && NotEnoughReplicasException.isOverload(failure)) {
            overload.refused(Overload.Reason.REPLICAS);
        }
    }

    /** What a write stores: a version stamped by this node's clock, which may refuse to issue one. */
    private interface Stamp {
        Entry make() throws IOException;
    }

    /**
     * Writes the entry {@code stamp} makes and answers {@code status}; a clock that cannot stamp it (its
     * lease not extended on a full disk) refuses the write as the store refuses one, 507 with the reason.
     */
    private Future<Void> write(HttpServerRequest request, Coordinated coordinated, Topology coordinator, Quorum quorum,
            Stamp stamp, int status) {
        Entry entry;
        try {
            entry = stamp.make();
        } catch (IOException e) {
            outcomes.record(request.method(), e);
            Responses.failure(request, e);
            return Future.succeededFuture();
        }
        return coordinated.<Void>run(coordinator, quorum, (on, q) -> on.write(entry, q), 1)
                .onComplete(done -> {
                    record(request.method(), done.cause());
                    Responses.completed(request, status, done.cause());
                });
    }

    /** One client request's coordination: its quorum as the client asked it, and when its retries must start by. */
    private final class Coordinated {
        private final String ack;
        private final String from;
        private final Context context;
        private final long retryDeadlineNanos;

        Coordinated(String ack, String from, Context context, long retryDeadlineNanos) {
            this.ack = ack;
            this.from = from;
            this.context = context;
            this.retryDeadlineNanos = retryDeadlineNanos;
        }

        /** Makes {@code call} on {@code on}; if replicas refused it as sent on an older map, again on the newer one. */
        <T> Future<T> run(Topology on, Quorum quorum, BiFunction<Topology, Quorum, CompletionStage<T>> call, int attempt) {
            Future<T> answer;
            try {
                answer = Future.fromCompletionStage(call.apply(on, quorum), context);
            } catch (RuntimeException e) {
                answer = Future.failedFuture(e);
            }
            return answer.recover(error -> {
                long newer = StaleEpochException.newestIn(error);
                long left = retryDeadlineNanos - System.nanoTime();
                if (newer < 0 || attempt >= MAX_ATTEMPTS || left <= 0) {
                    return Future.failedFuture(error);
                }
                return Future.fromCompletionStage(fence.reached(newer).toCompletableFuture().copy()
                        .completeOnTimeout(null, left, TimeUnit.NANOSECONDS), context).compose(reached -> {
                            Topology next = topology.get();
                            if (next.map().epoch() < newer) {
                                return Future.failedFuture(error);
                            }
                            Quorum again;
                            try {
                                again = Quorum.parse(ack, from, next.replicationFactor(), next.clusterSize());
                            } catch (IllegalArgumentException e) {
                                return Future.failedFuture(error);
                            }
                            outcomes.retriedOnNewerMap();
                            return run(next, again, call, attempt + 1);
                        });
            });
        }
    }

    /** The ttl in seconds, or -1 unless it is a decimal number in [1, {@link #MAX_TTL_SECONDS}]. */
    private static long parseTtl(String ttl) {
        if (ttl.isEmpty() || ttl.length() > 10) {
            return -1;
        }
        long seconds = 0;
        for (int i = 0; i < ttl.length(); i++) {
            char c = ttl.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            seconds = seconds * 10 + (c - '0');
        }
        return seconds >= 1 && seconds <= MAX_TTL_SECONDS ? seconds : -1;
    }

    /** The absolute expiry of a write with {@code ttlSeconds} (0: none) made now. */
    private static long expiry(long ttlSeconds) {
        return ttlSeconds == 0 ? Entry.NEVER : System.currentTimeMillis() + ttlSeconds * 1000;
    }
}
