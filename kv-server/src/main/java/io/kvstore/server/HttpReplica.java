package io.kvstore.server;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Replica;
import io.kvstore.core.Entry;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.URI;
import java.util.concurrent.CompletionStage;

/**
 * A replica on another node, reached through the internal route with the Vert.x web client: one
 * pool of keep-alive, pipelined connections per peer, a timeout per request, nothing blocks. A request
 * that times out closes its connection, failing the requests pipelined behind it on that connection
 * too: each is then a failed answer from this replica, as it would be from a peer that is down.
 * Timestamps seen in answers advance this node's clock.
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
        Future<Entry> answer = client.get(port, host, uri(key, -1)).timeout(timeoutMillis)
                .send()
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
        HttpRequest<Buffer> request = (entry.isTombstone() ? client.delete(port, host, uri) : client.put(port, host, uri))
                .timeout(timeoutMillis);
        Future<HttpResponse<Buffer>> sent = entry.isTombstone() ? request.send() : request.sendBuffer(Buffer.buffer(entry.value()));
        return sent.<Void>map(response -> {
            expect(response, entry.isTombstone() ? 202 : 201, entry.isTombstone() ? "DELETE" : "PUT");
            return null;
        }).toCompletionStage();
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
