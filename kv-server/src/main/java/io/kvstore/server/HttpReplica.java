package io.kvstore.server;

import io.kvstore.cluster.HybridClock;
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

/**
 * A replica on another node, reached through the internal route with the Vert.x web client: one
 * pool of keep-alive, pipelined connections per peer, a timeout per request, nothing blocks. A request
 * that times out closes its connection, failing the requests pipelined behind it on that connection
 * too. A request whose connection closes before it is answered (behind one that timed out, or on a
 * connection the peer closed as idle just as this node reused it: a 5M-key preload over 3 nodes lost
 * 6-8 writes that way in three runs of five, each 60 s after the pool opened its connections) is sent
 * once more on another connection, within the same timeout; internal writes carry their timestamp, so
 * one applied twice stores the same version. Any other failure, or a second close, is a failed answer
 * from this replica, as from a peer that is down. Timestamps seen in answers advance this node's clock.
 */
final class HttpReplica implements Replica {
    private final WebClient client;
    private final String host;
    private final int port;
    private final String node;
    private final long timeoutMillis;
    private final HybridClock clock;

    HttpReplica(WebClient client, String node, long timeoutMillis, HybridClock clock) {
        URI uri = URI.create(node);
        this.client = client;
        this.host = uri.getHost();
        this.port = uri.getPort();
        this.node = node;
        this.timeoutMillis = timeoutMillis;
        this.clock = clock;
    }

    @Override
    public CompletionStage<Entry> get(byte[] key) {
        String uri = uri(key, -1);
        Future<Entry> answer = sendRetryingClosed(timeout -> client.get(port, host, uri).timeout(timeout).send())
                .map(response -> {
                    if (response.statusCode() == 404) {
                        return null;
                    }
                    expect(response, 200, "GET");
                    long timestamp = Long.parseLong(response.getHeader(InternalProtocol.TIMESTAMP_HEADER));
                    clock.observe(timestamp);
                    if (Boolean.parseBoolean(response.getHeader(InternalProtocol.TOMBSTONE_HEADER))) {
                        return Entry.tombstone(key, timestamp);
                    }
                    Buffer body = response.body();
                    return Entry.value(key, body == null ? new byte[0] : body.getBytes(), timestamp);
                });
        return answer.toCompletionStage();
    }

    @Override
    public CompletionStage<Void> upsert(Entry entry) {
        String uri = uri(entry.key(), entry.timestamp());
        Future<HttpResponse<Buffer>> sent = sendRetryingClosed(timeout -> {
            HttpRequest<Buffer> request = (entry.isTombstone() ? client.delete(port, host, uri) : client.put(port, host, uri))
                    .timeout(timeout);
            return entry.isTombstone() ? request.send() : request.sendBuffer(Buffer.buffer(entry.value()));
        });
        return sent.<Void>map(response -> {
            expect(response, entry.isTombstone() ? 202 : 201, entry.isTombstone() ? "DELETE" : "PUT");
            return null;
        }).toCompletionStage();
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

    /** The internal route for {@code key}; base64url needs no further escaping. A negative timestamp is left out. */
    private static String uri(byte[] key, long timestamp) {
        String uri = InternalProtocol.PATH + '?' + InternalProtocol.KEY_PARAM + '=' + InternalProtocol.encodeKey(key);
        return timestamp < 0 ? uri : uri + '&' + InternalProtocol.TIMESTAMP_PARAM + '=' + timestamp;
    }

    private void expect(HttpResponse<Buffer> response, int status, String method) {
        if (response.statusCode() != status) {
            throw new IllegalStateException(method + " " + node + InternalProtocol.PATH + " answered "
                    + response.statusCode() + " instead of " + status);
        }
    }

    @Override
    public String toString() {
        return "HttpReplica{" + node + '}';
    }
}
