package io.kvstore.server.internode;

import io.kvstore.cluster.internal.repair.BuiltTree;
import io.kvstore.cluster.internal.repair.EntryBatch;
import io.kvstore.cluster.internal.repair.KeyInterval;
import io.kvstore.cluster.internal.repair.RepairPeer;
import io.kvstore.cluster.internal.repair.VersionPage;
import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.core.Entry;
import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.RepairProtocol;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Another node's side of an exchange, over {@link RepairProtocol}: one object per exchange, so that
 * {@link #wireBytes()} counts that exchange's traffic. Every request has a timeout; a peer that is
 * down, killed or stopped fails the call, and with it the exchange.
 */
public final class HttpRepairPeer implements RepairPeer {
    private final WebClient client;
    private final String node;
    private final String host;
    private final int port;
    private final long timeoutMillis;
    private final int maxKeyBytes;
    private final AtomicLong wireBytes = new AtomicLong();

    /** {@code maxKeyBytes}: the longest key accepted in an answer. */
    public HttpRepairPeer(WebClient client, String node, long timeoutMillis, int maxKeyBytes) {
        NodeUrl uri = NodeUrl.parse(node);
        this.client = client;
        this.node = node;
        this.host = uri.host();
        this.port = uri.port();
        this.timeoutMillis = timeoutMillis;
        this.maxKeyBytes = maxKeyBytes;
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public CompletionStage<BuiltTree> openTree(String partner, int replicationFactor, int depth, KeyInterval interval) {
        String uri = RepairProtocol.TREE + '?' + RepairProtocol.PARTNER + '=' + URLEncoder.encode(partner, StandardCharsets.UTF_8)
                + '&' + RepairProtocol.REPLICATION_FACTOR + '=' + replicationFactor + '&' + RepairProtocol.DEPTH + '=' + depth;
        uri += RepairProtocol.intervalQuery(interval, uri.length());
        return send(HttpMethod.POST, uri, null, 200, body -> parseNumber(body, "repair tree id"))
                .compose(this::awaitBuilt)
                .toCompletionStage();
    }

    /** Asks until the tree is built: each poll waits on the peer for a while, then 202 means ask again. */
    private Future<BuiltTree> awaitBuilt(long id) {
        String uri = RepairProtocol.TREE + '?' + RepairProtocol.TREE_ID + '=' + id;
        return request(HttpMethod.GET, uri, null).compose(response -> {
            if (response.statusCode() == 202) {
                return awaitBuilt(id);
            }
            check(response, 200, HttpMethod.GET, uri);
            Buffer body = response.body();
            boolean said = body != null && body.length() > 0;
            return Future.succeededFuture(new BuiltTree(id, said ? parseNumber(body, "repair tree's entries") : -1));
        });
    }

    @Override
    public CompletionStage<long[]> hashes(long tree, int level, int[] indexes) {
        String uri = RepairProtocol.HASHES + '?' + RepairProtocol.TREE_ID + '=' + tree + '&' + RepairProtocol.LEVEL + '=' + level;
        return send(HttpMethod.POST, uri, RepairProtocol.ints(indexes), 200,
                body -> reader(body, "hash answer").longs()).toCompletionStage();
    }

    @Override
    public CompletionStage<VersionPage> versions(long tree, BitSet segments, byte[] after, byte[] upTo, int maxVersions) {
        StringBuilder uri = new StringBuilder(RepairProtocol.VERSIONS).append('?').append(RepairProtocol.TREE_ID).append('=').append(tree)
                .append('&').append(RepairProtocol.MAX).append('=').append(maxVersions);
        if (after != null) {
            uri.append('&').append(RepairProtocol.AFTER).append('=').append(InternalCodec.encodeKey(after));
        }
        if (upTo != null) {
            uri.append('&').append(RepairProtocol.UP_TO).append('=').append(InternalCodec.encodeKey(upTo));
        }
        return send(HttpMethod.POST, uri.toString(), Buffer.buffer(segments.toByteArray()), 200,
                body -> reader(body, "version page").page()).toCompletionStage();
    }

    @Override
    public CompletionStage<EntryBatch> entries(List<byte[]> keys, long maxBytes) {
        String uri = RepairProtocol.ENTRIES + '?' + RepairProtocol.MAX_BYTES + '=' + maxBytes;
        return send(HttpMethod.POST, uri, RepairProtocol.keys(keys), 200,
                body -> reader(body, "entry batch").batch()).toCompletionStage();
    }

    @Override
    public CompletionStage<Void> apply(List<Entry> entries) {
        return send(HttpMethod.POST, RepairProtocol.APPLY, RepairProtocol.entries(entries), 204, body -> (Void) null)
                .toCompletionStage();
    }

    /**
     * Sends {@code entries}, in strictly increasing key order, for the node to store as a bulk load
     * ({@code apply?ingest=true}); completes once it stored them.
     */
    public CompletionStage<Void> ingest(List<Entry> entries) {
        return send(HttpMethod.POST, RepairProtocol.APPLY + '?' + RepairProtocol.INGEST + "=true",
                RepairProtocol.entries(entries), 204, body -> (Void) null).toCompletionStage();
    }

    @Override
    public CompletionStage<Void> closeTree(long tree) {
        String uri = RepairProtocol.TREE + '?' + RepairProtocol.TREE_ID + '=' + tree;
        return send(HttpMethod.DELETE, uri, null, 204, body -> (Void) null).toCompletionStage();
    }

    @Override
    public long wireBytes() {
        return wireBytes.get();
    }

    private <T> Future<T> send(HttpMethod method, String uri, Buffer body, int expected, Function<Buffer, T> parse) {
        return request(method, uri, body).map(response -> {
            check(response, expected, method, uri);
            Buffer answer = response.body();
            return parse.apply(answer == null ? Buffer.buffer() : answer);
        });
    }

    private Future<HttpResponse<Buffer>> request(HttpMethod method, String uri, Buffer body) {
        if (body != null) {
            wireBytes.addAndGet(body.length());
        }
        var request = client.request(method, port, host, uri).timeout(timeoutMillis);
        Future<HttpResponse<Buffer>> sent = body == null ? request.send() : request.sendBuffer(body);
        return sent.map(response -> {
            Buffer answer = response.body();
            wireBytes.addAndGet(answer == null ? 0 : answer.length());
            return response;
        }).recover(error -> Future.failedFuture(new RepairPeerException(node + " failed to answer " + method + " "
                + uri.substring(0, uri.indexOf('?') < 0 ? uri.length() : uri.indexOf('?')) + ": " + error, error)));
    }

    private void check(HttpResponse<Buffer> response, int expected, HttpMethod method, String uri) {
        if (response.statusCode() != expected) {
            Buffer body = response.body();
            String reason = body == null ? "" : body.toString(StandardCharsets.UTF_8).trim();
            String path = uri.indexOf('?') < 0 ? uri : uri.substring(0, uri.indexOf('?'));
            throw new RepairPeerException(node + " answered " + response.statusCode() + " to " + method + " " + path
                    + (reason.isEmpty() ? "" : ": " + reason), null);
        }
    }

    private static long parseNumber(Buffer body, String what) {
        try {
            return Decimal.parse(body.toString(StandardCharsets.UTF_8).trim(), what);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("a " + what + " that is not a number: " + body);
        }
    }

    private RepairProtocol.Reader reader(Buffer body, String what) {
        return new RepairProtocol.Reader(body.getBytes(), what + " from " + node, maxKeyBytes);
    }

    @Override
    public String toString() {
        return "HttpRepairPeer{" + node + '}';
    }
}
