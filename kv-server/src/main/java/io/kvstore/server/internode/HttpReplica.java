package io.kvstore.server.internode;

import io.kvstore.cluster.Replica;
import io.kvstore.cluster.StaleEpochException;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.core.Entry;
import io.kvstore.server.wire.BatchCodec;
import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.Routes;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A replica on another node, reached through the internal route with the Vert.x web client: one
 * pool of keep-alive, pipelined connections per peer, a timeout per request, nothing blocks. A request
 * that times out closes its connection, failing the requests pipelined behind it on that connection
 * too. A request whose connection closes before it is answered (behind one that timed out, or on a
 * connection the peer closed as idle just as this node reused it, which a long preload meets once the
 * pool's connections reach the peer's idle timeout) is sent once more on another connection, within
 * the same timeout; internal writes carry their timestamp, so
 * one applied twice stores the same version. Any other failure, or a second close, is a failed answer
 * from this replica, as from a peer that is down. Requests and answers are encoded by
 * {@link InternalCodec}; the coordinator, not this adapter, observes the timestamps of answers. Reads
 * and writes made in the same round of an event loop's work travel together ({@link RoundBatcher},
 * {@link BatchCodec}). A peer on a newer map that moved the key refuses with 421 and its epoch
 * ({@link EpochFence}): the call fails with a {@link StaleEpochException} and this node pulls that map.
 * A peer that answers 503 (it cannot take the call in time) fails it with a ReplicaOverloadedException.
 */
public final class HttpReplica implements Replica {
    /** How long calls to a peer without the batched routes go one by one before a batch tries them again. */
    private static final long SINGLES_AFTER_UNKNOWN_ROUTE_NANOS = TimeUnit.SECONDS.toNanos(60);
    private final WebClient client;
    private final String host;
    private final int port;
    private final String node;
    private final long timeoutMillis;
    /** This node's URL and the epoch and fingerprint of the map its requests are made on; null sends none. */
    private final String self;
    private final String epochText;
    private final String fingerprintText;
    /** Told the epoch of every answer, so that this node pulls a newer map a peer answers with. */
    private final EpochFence fence;
    /** Null: every call is a request of its own. */
    private final RoundBatcher<byte[], Entry> reads;
    private final RoundBatcher<Entry, Void> writes;
    /** When a batch last found the peer without the batched routes; long before, if never. */
    private volatile long singlesSince = System.nanoTime() - SINGLES_AFTER_UNKNOWN_ROUTE_NANOS;

    /** A replica that batches its calls, counted by counters of its own. */
    public HttpReplica(WebClient client, String node, long timeoutMillis) {
        this(client, node, timeoutMillis, null, null, EpochFence.NONE, new BatchCounters());
    }

    /**
     * @param self     this node's URL, sent as {@code X-Kv-Node} so that a peer behind knows whom to pull a map from
     * @param map      the map this replica's requests are made on: its epoch and fingerprint are sent as
     *                 {@code X-Kv-Epoch} and {@code X-Kv-Map}, so that a request carries the epoch of the map
     *                 that chose its replicas even if a newer one arrives while it is on its way; null sends none
     * @param fence    told the epoch of the peer's answers
     * @param batches  counts the batches, shared by the node's replicas; null sends each call alone
     */
    public HttpReplica(WebClient client, String node, long timeoutMillis, String self, ClusterMap map,
                EpochFence fence, BatchCounters batches) {
        this.self = self;
        this.fence = fence;
        this.epochText = map == null ? null : Long.toString(map.epoch());
        this.fingerprintText = map == null ? null : map.fingerprintText();
        NodeUrl uri = NodeUrl.parse(node);
        this.client = client;
        this.host = uri.host();
        this.port = uri.port();
        this.node = node;
        this.timeoutMillis = timeoutMillis;
        if (batches == null) {
            this.reads = null;
            this.writes = null;
        } else {
            this.reads = new RoundBatcher<>(new RoundBatcher.Sender<>() {
                @Override
                public Future<Entry> one(byte[] key) {
                    return readOne(key);
                }

                @Override
                public Future<List<AsyncResult<Entry>>> batch(List<byte[]> keys) {
                    return sendBatch(Routes.READS, keys, () -> BatchCodec.readsBody(keys), this::one,
                            response -> BatchCodec.readOutcomes(keys, response.statusCode(), response.body(), node));
                }
            }, BatchCodec::readSize, batches.reads());
            this.writes = new RoundBatcher<>(new RoundBatcher.Sender<>() {
                @Override
                public Future<Void> one(Entry entry) {
                    return writeOne(entry);
                }

                @Override
                public Future<List<AsyncResult<Void>>> batch(List<Entry> entries) {
                    return sendBatch(Routes.WRITES, entries, () -> BatchCodec.writesBody(entries), this::one,
                            response -> BatchCodec.writeOutcomes(entries.size(), response.statusCode(), response.body(), node));
                }
            }, BatchCodec::writeSize, batches.writes());
        }
    }

    @Override
    public CompletionStage<Entry> get(byte[] key) {
        return (reads == null ? readOne(key) : reads.submit(key)).toCompletionStage();
    }

    @Override
    public CompletionStage<Void> upsert(Entry entry) {
        return (writes == null ? writeOne(entry) : writes.submit(entry)).toCompletionStage();
    }

    /** One read on the entity route. */
    private Future<Entry> readOne(byte[] key) {
        String uri = InternalCodec.readUri(key);
        return sendRetryingClosed(timeout -> tagged(client.get(port, host, uri)).timeout(timeout).send())
                .map(response -> InternalCodec.readAnswer(key, fenced(response), node));
    }

    /** One write on the entity route. */
    private Future<Void> writeOne(Entry entry) {
        String uri = InternalCodec.writeUri(entry);
        Future<HttpResponse<Buffer>> sent = sendRetryingClosed(timeout -> {
            HttpRequest<Buffer> request = tagged(client.request(InternalCodec.writeMethod(entry), port, host, uri)).timeout(timeout);
            return entry.isTombstone() ? request.send() : request.sendBuffer(Buffer.buffer(entry.value()));
        });
        return sent.map(response -> {
            InternalCodec.checkWriteAnswer(entry, fenced(response), node);
            return null;
        });
    }

    /**
     * Several calls on a batched route; to a peer that predates it, each on the entity route
     * ({@code one}), as all batches for a while after ({@link #SINGLES_AFTER_UNKNOWN_ROUTE_NANOS}).
     */
    private <T, R> Future<List<AsyncResult<R>>> sendBatch(String path, List<T> calls, Supplier<Buffer> body,
                                                          Function<T, Future<R>> one,
                                                          Function<HttpResponse<Buffer>, List<AsyncResult<R>>> outcomes) {
        if (System.nanoTime() - singlesSince < SINGLES_AFTER_UNKNOWN_ROUTE_NANOS) {
            return each(calls, one);
        }
        Buffer encoded = body.get();
        return sendRetryingClosed(timeout -> tagged(client.request(HttpMethod.POST, port, host, path)).timeout(timeout)
                .sendBuffer(encoded))
                .compose(response -> {
                    fenced(response);
                    if (BatchCodec.unknownRoute(response.statusCode(), response.body())) {
                        singlesSince = System.nanoTime();
                        return each(calls, one);
                    }
                    return Future.succeededFuture(outcomes.apply(response));
                });
    }

    private static <T, R> Future<List<AsyncResult<R>>> each(List<T> calls, Function<T, Future<R>> one) {
        List<Future<R>> sent = new ArrayList<>(calls.size());
        for (T call : calls) {
            sent.add(one.apply(call));
        }
        return Future.join(sent).transform(done -> Future.succeededFuture(new ArrayList<>(sent)));
    }

    @Override
    public CompletionStage<Void> ping() {
        return client.get(port, host, Routes.PING).timeout(timeoutMillis).send().<Void>map(response -> {
            if (response.statusCode() != 204) {
                throw new IllegalStateException("GET " + node + Routes.PING + " answered " + response.statusCode());
            }
            return null;
        }).toCompletionStage();
    }

    private HttpRequest<Buffer> tagged(HttpRequest<Buffer> request) {
        if (epochText != null) {
            request.putHeader(Headers.EPOCH, epochText)
                    .putHeader(Headers.MAP_FINGERPRINT, fingerprintText)
                    .putHeader(Headers.NODE, self);
        }
        return request;
    }

    /**
     * Observes the epoch the peer answered with; a 421 carrying one is its refusal of a request sent on an
     * older map than its own.
     *
     * @throws StaleEpochException if the peer refused so
     */
    private HttpResponse<Buffer> fenced(HttpResponse<Buffer> response) {
        String answered = response.getHeader(Headers.EPOCH);
        if (answered == null || epochText == null
                || answered.equals(epochText) && response.statusCode() != InternalCodec.STALE_EPOCH) {
            return response;
        }
        long epoch;
        try {
            epoch = Decimal.parse(answered, Headers.EPOCH);
        } catch (IllegalArgumentException e) {
            return response;
        }
        fence.observe(epoch, node);
        if (response.statusCode() == InternalCodec.STALE_EPOCH) {
            String reason = response.bodyAsString();
            throw new StaleEpochException(node + " refused a request of map epoch " + epochText + ": "
                    + (reason == null ? "" : reason.strip()), epoch);
        }
        return response;
    }

    /**
     * Sends the request {@code attempt} makes with the given timeout in milliseconds; if its connection
     * closed before an answer, sends it once more with the time left.
     */
    private Future<HttpResponse<Buffer>> sendRetryingClosed(LongFunction<Future<HttpResponse<Buffer>>> attempt) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        return attempt.apply(timeoutMillis).recover(error -> {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            return error instanceof HttpClosedException && left > 0 ? attempt.apply(left) : Future.failedFuture(error);
        });
    }

    @Override
    public String toString() {
        return "HttpReplica{" + node + '}';
    }
}
