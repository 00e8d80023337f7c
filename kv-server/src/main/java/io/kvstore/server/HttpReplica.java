package io.kvstore.server;

import io.kvstore.cluster.Replica;
import io.kvstore.core.Entry;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.URI;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A replica on another node, reached through the internal route with the Vert.x web client: one
 * pool of keep-alive, pipelined connections per peer, a timeout per request, nothing blocks. A request
 * that times out closes its connection, failing the requests pipelined behind it on that connection
 * too. A request whose connection closes before it is answered (behind one that timed out, or on a
 * connection the peer closed as idle just as this node reused it: a 5M-key preload over 3 nodes lost
 * 6-8 writes that way in three runs of five, each 60 s after the pool opened its connections) is sent
 * once more on another connection, within the same timeout; internal writes carry their timestamp, so
 * one applied twice stores the same version. Any other failure, or a second close, is a failed answer
 * from this replica, as from a peer that is down. Requests and answers are encoded by
 * {@link InternalCodec}; the coordinator, not this adapter, observes the timestamps of answers.
 */
final class HttpReplica implements Replica {
    private final WebClient client;
    private final String host;
    private final int port;
    private final String node;
    private final long timeoutMillis;
    /** This node's URL and its current topology, whose map's epoch and fingerprint every request carries; null sends none. */
    private final String self;
    private final Supplier<Topology> topology;

    HttpReplica(WebClient client, String node, long timeoutMillis) {
        this(client, node, timeoutMillis, null, null);
    }

    /**
     * @param self     this node's URL, sent as {@code X-Kv-Node} so that a peer behind knows whom to pull a map from
     * @param topology this node's topology: its map's epoch and fingerprint (kept ready as text) are sent as
     *                 {@code X-Kv-Epoch} and {@code X-Kv-Map}, read from one topology so that they always match
     */
    HttpReplica(WebClient client, String node, long timeoutMillis, String self, Supplier<Topology> topology) {
        this.self = self;
        this.topology = topology;
        URI uri = URI.create(node);
        this.client = client;
        this.host = uri.getHost();
        this.port = uri.getPort();
        this.node = node;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public CompletionStage<Entry> get(byte[] key) {
        String uri = InternalCodec.readUri(key);
        return sendRetryingClosed(timeout -> tagged(client.get(port, host, uri)).timeout(timeout).send())
                .map(response -> InternalCodec.readAnswer(key, response, node))
                .toCompletionStage();
    }

    @Override
    public CompletionStage<Void> upsert(Entry entry) {
        String uri = InternalCodec.writeUri(entry);
        Future<HttpResponse<Buffer>> sent = sendRetryingClosed(timeout -> {
            HttpRequest<Buffer> request = tagged(client.request(InternalCodec.writeMethod(entry), port, host, uri)).timeout(timeout);
            return entry.isTombstone() ? request.send() : request.sendBuffer(Buffer.buffer(entry.value()));
        });
        return sent.<Void>map(response -> {
            InternalCodec.checkWriteAnswer(entry, response, node);
            return null;
        }).toCompletionStage();
    }

    @Override
    public CompletionStage<Void> ping() {
        return client.get(port, host, InternalCodec.PING_PATH).timeout(timeoutMillis).send().<Void>map(response -> {
            if (response.statusCode() != 204) {
                throw new IllegalStateException("GET " + node + InternalCodec.PING_PATH + " answered " + response.statusCode());
            }
            return null;
        }).toCompletionStage();
    }

    private HttpRequest<Buffer> tagged(HttpRequest<Buffer> request) {
        Topology current = topology == null ? null : topology.get();
        if (current != null) {
            request.putHeader(MembershipHandler.EPOCH_HEADER, current.epochText())
                    .putHeader(MembershipHandler.FINGERPRINT_HEADER, current.fingerprintText())
                    .putHeader(MembershipHandler.NODE_HEADER, self);
        }
        return request;
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
