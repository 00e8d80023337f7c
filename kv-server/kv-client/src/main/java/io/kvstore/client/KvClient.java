package io.kvstore.client;

import io.kvstore.client.internal.RequestSigning;
import io.kvstore.client.internal.VertxTls;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java client of a kvstore cluster (protocol v0 over HTTP/1.1 keep-alive connections).
 *
 * <pre>{@code
 * try (KvClient client = KvClient.connect("http://10.0.0.1:8080", "http://10.0.0.2:8080")) {
 *     client.blocking().put("user:42", "Ada");
 *     Optional<String> name = client.blocking().getString("user:42");   // Optional[Ada]
 *     client.get(key, CallOptions.DEFAULT.ack(1)).thenAccept(value -> ...);  // asynchronous
 * }
 * }</pre>
 *
 * <p>Keys are arbitrary bytes (percent-encoded on the wire as RFC 3986 says); values are arbitrary bytes,
 * an empty value included. A GET of an absent or deleted key is an empty {@code Optional}; failures
 * are {@link KvClientException}s: {@link QuorumNotReachedException} (504), {@link OverloadedException}
 * (503), {@link InvalidRequestException} (400, 413, 414), or status 0 when no node answered.
 *
 * <p>Partition-aware: the client reads the cluster map ({@code GET /v0/cluster}, or the node list and
 * partitioner of {@code GET /v0/status} from nodes without one) from the first seed that answers,
 * places each key with the same {@link io.kvstore.cluster.Partitioner} as the nodes, and sends each
 * request to a live replica of its key, so the coordinating node holds a copy itself. It reads the map
 * again when a response carries a newer {@link #EPOCH_HEADER epoch}, when a node fails to answer
 * (which also marks that node down for a second, doubling up to
 * half a minute while it keeps failing) and on the first request once the map is older than the
 * {@link Builder#refreshInterval refresh interval} (no timer: an idle client asks nothing). Routing
 * only saves a network hop: any node coordinates any key, so a stale map never makes an answer wrong.
 * A request that got no answer because its connection could not be made or was closed or reset (a
 * node killed or stopping, or closing an idle connection just as it was reused) is sent to the next live node; a write
 * applied before the close is then applied once more, with a newer timestamp. A GET is also sent
 * again after a timeout; a PUT or DELETE is not (it may be in progress). A request refused as
 * overloaded (503) is sent once more, to a node it has not tried, after the smaller of the node's
 * {@code Retry-After} and a quarter of the timeout (a node sheds for as long as its queues stand, often
 * a fraction of a second; one retry at most, so that retries cannot multiply the load that caused
 * them); refused again, or with no other node, it fails with the {@link OverloadedException}.
 *
 * <p>Seeds given as {@code https://} URLs make the client speak TLS, trusting {@link Builder#trustedCa};
 * a cluster started with {@code --client-token-file} needs {@link Builder#token} (or, for an operator's
 * tool, {@link Builder#clusterSecret}).
 *
 * <p>Thread-safe; share one instance. Asynchronous results complete on the client's event loops: do
 * not block in their callbacks. {@link #blocking()} waits for them on the calling thread.
 */
public final class KvClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KvClient.class);
    /**
     * A response header carrying the epoch of the cluster map the node holds; a client holding an older
     * map reads it again.
     */
    public static final String EPOCH_HEADER = "X-Kv-Epoch";
    /** The least time between two refreshes caused by errors, so a dead node does not cause a storm. */
    private static final long MIN_REFRESH_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /** Where requests go. */
    public enum Routing {
        /** To a live replica of the key, placed with the cluster's partitioner (the default). */
        REPLICA,
        /**
         * To the seed nodes in turn, never reading the cluster map: the coordinator is any node, as
         * with a plain HTTP client or a load balancer; also for servers that speak only the data routes.
         */
        ROUND_ROBIN
    }

    private final Vertx vertx;
    private final boolean ownsVertx;
    private final HttpClientAgent http;
    private final NetClient net;
    private final Context[] contexts;
    private final AtomicInteger nextContext = new AtomicInteger();
    private final AtomicInteger nextNode = new AtomicInteger();
    private final List<String> seeds;
    private final Routing routing;
    private final long timeoutMillis;
    /** Age at which the map is read again on the next request; 0: only on errors and newer epochs. */
    private final long refreshIntervalNanos;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final BlockingKvClient blocking;
    /** The Authorization header's value, or null. */
    private final String authorization;
    /** Signs each request instead, or null. */
    private final RequestSigning signing;
    private volatile RoutingTable map;
    private volatile long lastRefreshNanos;
    private volatile boolean closed;

    private KvClient(Builder b) {
        this.ownsVertx = b.vertx == null;
        this.vertx = ownsVertx ? Vertx.vertx(new VertxOptions().setEventLoopPoolSize(b.eventLoops)) : b.vertx;
        this.seeds = List.copyOf(b.seeds);
        this.routing = b.routing;
        this.timeoutMillis = b.timeout.toMillis();
        this.authorization = b.token == null ? null : "Bearer " + b.token;
        this.signing = b.clusterSecret == null ? null : new RequestSigning(b.clusterSecret);
        boolean tls = b.seeds.get(0).startsWith("https:");
        HttpClientOptions httpOptions = new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMillis));
        NetClientOptions netOptions = new NetClientOptions().setTcpNoDelay(true)
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMillis));
        if (tls) {
            httpOptions.setSsl(true).setSslEngineOptions(VertxTls.engineOptions(b.tlsEngine));
            netOptions.setSsl(true).setHostnameVerificationAlgorithm("HTTPS").setSslEngineOptions(VertxTls.engineOptions(b.tlsEngine));
            if (b.trustedCa != null) {
                httpOptions.setTrustOptions(new PemTrustOptions().addCertPath(b.trustedCa.toString()));
                netOptions.setTrustOptions(new PemTrustOptions().addCertPath(b.trustedCa.toString()));
            }
        }
        this.http = vertx.createHttpClient(httpOptions, new PoolOptions().setHttp1MaxSize(b.connectionsPerNode));
        this.net = vertx.createNetClient(netOptions);
        this.contexts = new Context[b.eventLoops];
        for (int i = 0; i < contexts.length; i++) {
            contexts[i] = vertx.getOrCreateContext();
        }
        this.map = RoutingTable.ofSeeds(seeds);
        this.blocking = new BlockingKvClient(this, b.timeout);
        this.refreshIntervalNanos = routing == Routing.REPLICA ? b.refreshInterval.toNanos() : 0;
    }

    /** A client with default settings that reads the cluster map from the first of {@code seeds} to answer. */
    public static KvClient connect(String... seeds) {
        return builder().seeds(seeds).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The value of {@code key}, empty if absent or deleted, with the server's default {@code ack}/{@code from}. */
    public CompletionStage<Optional<byte[]>> get(byte[] key) {
        return get(key, CallOptions.DEFAULT);
    }

    /** The value of {@code key}, empty if absent or deleted. */
    public CompletionStage<Optional<byte[]>> get(byte[] key, CallOptions options) {
        return execute(HttpMethod.GET, key, options.query(), options.from(), null, ResponseOutcome.GET);
    }

    /** Stores {@code value} under {@code key}; completes once {@code ack} replicas stored it. */
    public CompletionStage<Void> put(byte[] key, byte[] value) {
        return put(key, value, CallOptions.DEFAULT);
    }

    /** Stores {@code value} under {@code key}; completes once {@code ack} replicas stored it. */
    public CompletionStage<Void> put(byte[] key, byte[] value, CallOptions options) {
        return execute(HttpMethod.PUT, key, options.putQuery(), options.from(), Buffer.buffer(value), ResponseOutcome.PUT);
    }

    /**
     * Same as {@link #put(byte[], byte[], CallOptions)} with the value in the {@linkplain ByteBuffer#remaining()
     * remaining} bytes of {@code value}, which are copied before this returns; its position does not move.
     */
    public CompletionStage<Void> put(byte[] key, ByteBuffer value, CallOptions options) {
        Buffer body = Buffer.buffer(value.remaining()).setBytes(0, value.slice());
        return execute(HttpMethod.PUT, key, options.putQuery(), options.from(), body, ResponseOutcome.PUT);
    }

    /**
     * Same as {@link #put(byte[], byte[], CallOptions)} with a value already in a Vert.x buffer, which
     * is sent as it is (a caller sending one value many times avoids a copy per request).
     *
     * @deprecated the client's API takes no Vert.x types: use {@link #put(byte[], ByteBuffer, CallOptions)}
     *             or {@link #put(byte[], byte[], CallOptions)}
     */
    @Deprecated
    public CompletionStage<Void> put(byte[] key, Buffer value, CallOptions options) {
        return execute(HttpMethod.PUT, key, options.putQuery(), options.from(), value, ResponseOutcome.PUT);
    }

    /** Deletes {@code key} (writes a tombstone); completes once {@code ack} replicas stored it. */
    public CompletionStage<Void> delete(byte[] key) {
        return delete(key, CallOptions.DEFAULT);
    }

    /** Deletes {@code key} (writes a tombstone); completes once {@code ack} replicas stored it. */
    public CompletionStage<Void> delete(byte[] key, CallOptions options) {
        return execute(HttpMethod.DELETE, key, options.query(), options.from(), null, ResponseOutcome.DELETE);
    }

    /**
     * The entries of the whole cluster with {@code start <= key < end} ({@code end} null: to the last
     * key), in key order, streamed from a live node ({@code scope=cluster}; needs a server that
     * implements it). See {@link RangeIterator} for back-pressure and closing.
     */
    public RangeIterator range(byte[] start, byte[] end) {
        return range(start, end, CallOptions.DEFAULT);
    }

    /**
     * Same as {@link #range(byte[], byte[])}, each key's answer coming from at least {@code ack} of its
     * {@code from} replicas as {@code options} set them (unset: {@code ack} 1, {@code from} every owner);
     * a {@code ttl} does not apply and is not sent.
     */
    public RangeIterator range(byte[] start, byte[] end, CallOptions options) {
        RoutingTable current = map;
        int node = current.anyUsable(Math.floorMod(nextNode.getAndIncrement(), current.size()), System.nanoTime());
        return openRange(current.nodes.get(node), start, end, "&scope=cluster" + options.query());
    }

    /**
     * The entries that node {@code nodeUrl} holds itself with {@code start <= key < end} ({@code end}
     * null: to the last key), in key order: what the protocol's node-local {@code GET /v0/entities} streams.
     */
    public RangeIterator localRange(String nodeUrl, byte[] start, byte[] end) {
        return openRange(nodeUrl, start, end, "");
    }

    private RangeIterator openRange(String nodeUrl, byte[] start, byte[] end, String scope) {
        if (start == null || start.length == 0) {
            throw new IllegalArgumentException("a range needs a non-empty start key");
        }
        StringBuilder uri = KeyEncoding.append(new StringBuilder("/v0/entities?start="), start);
        if (end != null) {
            KeyEncoding.append(uri.append("&end="), end);
        }
        String target = uri.append(scope).toString();
        StringBuilder headers = new StringBuilder();
        String[] credentials = credentials("GET", target, null);
        for (int i = 0; i < credentials.length; i += 2) {
            headers.append(credentials[i]).append(": ").append(credentials[i + 1]).append("\r\n");
        }
        return RangeIterator.open(net, pickContext(), RoutingTable.address(nodeUrl), nodeUrl, target, headers.toString(),
                timeoutMillis);
    }

    /** This client's blocking face: the same calls, waited for on the calling thread. */
    public BlockingKvClient blocking() {
        return blocking;
    }

    /** The nodes of the cluster map this client holds (the seeds until it has read one), in configured order. */
    public List<String> nodes() {
        return map.nodes;
    }

    /**
     * The URL of the node the next request for {@code key} with {@code options} would go to: with
     * {@link Routing#REPLICA}, a live replica of the key (its first replica while that one is up).
     */
    public String nodeFor(byte[] key, CallOptions options) {
        RoutingTable current = map;
        return current.nodes.get(pickNode(current, key, options.from(), System.nanoTime()));
    }

    /** Reads the cluster map again now; the stage completes once it is in place, or fails if no node gave one. */
    public CompletionStage<Void> refresh() {
        if (routing == Routing.ROUND_ROBIN) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        onClientLoop(() -> fetchMap().onComplete(fetched -> {
            if (fetched.succeeded()) {
                done.complete(null);
            } else {
                done.completeExceptionally(fetched.cause());
            }
        }));
        return done;
    }

    /**
     * Runs {@code action} on the calling event loop if it is one of this client's Vert.x instance, else
     * on one of the client's: the connection pool hands out and recycles connections on event loops,
     * and a request issued from a foreign thread could wait for ever for a connection recycled meanwhile.
     */
    private void onClientLoop(Runnable action) {
        Context current = Vertx.currentContext();
        if (current != null && current.owner() == vertx) {
            action.run();
        } else {
            pickContext().runOnContext(v -> action.run());
        }
    }

    /** Closes the connections (and the event loops, if the client created them). Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Future<Void> done = Future.join(http.close(), net.close()).mapEmpty();
        if (ownsVertx) {
            done = done.eventually(vertx::close);
        }
        try {
            done.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("closing the kvstore client did not finish cleanly", e);
        }
    }

    private <T> CompletionStage<T> execute(HttpMethod method, byte[] key, String query, int from, Buffer body,
            ResponseOutcome<T> outcome) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("a key must have at least one byte");
        }
        String uri = KeyEncoding.append(new StringBuilder(16 + key.length + query.length()).append("/v0/entity?id="), key)
                .append(query).toString();
        CompletableFuture<T> result = new CompletableFuture<>();
        Context current = Vertx.currentContext();
        if (current != null && current.owner() == vertx) {
            attempt(method, key, uri, from, body, outcome, result, List.of(), false);
        } else {
            pickContext().runOnContext(v -> attempt(method, key, uri, from, body, outcome, result, List.of(), false));
        }
        return result;
    }

    /**
     * {@code tried}: the nodes this request went to before without an answer, or that refused it as
     * overloaded ({@code refusedOnce}); it goes to another.
     */
    private <T> void attempt(HttpMethod method, byte[] key, String uri, int from, Buffer body, ResponseOutcome<T> outcome,
            CompletableFuture<T> result, List<String> tried, boolean refusedOnce) {
        RoutingTable current = map;
        long now = System.nanoTime();
        if (refreshIntervalNanos > 0 && now - lastRefreshNanos >= refreshIntervalNanos) {
            requestRefresh(true);
        }
        int picked = pickNode(current, key, from, now);
        // A map read since may have forgotten that a node just failed: never the same node twice.
        int node = tried.contains(current.nodes.get(picked)) ? current.untried(picked, tried, now) : picked;
        SocketAddress address = current.addresses[node];
        String nodeUrl = current.nodes.get(node);
        RequestOptions request = new RequestOptions().setMethod(method).setHost(address.host()).setPort(address.port())
                .setURI(uri).setIdleTimeout(timeoutMillis);
        authenticate(request, body);
        http.request(request)
                .compose(req -> body == null ? req.send() : req.send(body))
                .compose(response -> response.body().map(bytes -> {
                    checkEpoch(current, response.getHeader(EPOCH_HEADER));
                    return outcome.of(response, bytes, nodeUrl);
                }))
                .onComplete(answer -> {
                    if (answer.succeeded()) {
                        current.markUp(node);
                        result.complete(answer.result());
                        return;
                    }
                    Throwable error = answer.cause();
                    if (error instanceof OverloadedException overloaded && !refusedOnce && tried.size() + 1 < current.size()
                            && !closed) {
                        List<String> refused = new ArrayList<>(tried);
                        refused.add(nodeUrl);
                        vertx.setTimer(overloadRetryDelayMillis(overloaded),
                                t -> attempt(method, key, uri, from, body, outcome, result, refused, true));
                        return;
                    }
                    if (error instanceof KvClientException) {
                        current.markUp(node);
                        result.completeExceptionally(error);
                        return;
                    }
                    current.markDown(node, System.nanoTime());
                    requestRefresh(false);
                    List<String> failed = new ArrayList<>(tried);
                    failed.add(nodeUrl);
                    if ((unanswered(error) || method == HttpMethod.GET) && failed.size() < current.size() && !closed) {
                        attempt(method, key, uri, from, body, outcome, result, failed, refusedOnce);
                    } else {
                        result.completeExceptionally(new KvClientException(method + " " + uri + ": no answer from "
                                + nodeUrl + ": " + error, 0, nodeUrl, error));
                    }
                });
    }

    /** How long to wait before sending a refused request to another node: the node's Retry-After, at most a quarter of the timeout. */
    private long overloadRetryDelayMillis(OverloadedException overloaded) {
        long asked = overloaded.retryAfter() == null ? 1000 : overloaded.retryAfter().toMillis();
        return Math.max(1, Math.min(asked, timeoutMillis / 4));
    }

    /**
     * Whether a request got no answer because its connection could not be made, or was closed or reset
     * under it (a node stopping closes kept-alive connections; a request racing the close is reset).
     */
    private static boolean unanswered(Throwable error) {
        if (error instanceof ConnectException || error instanceof HttpClosedException) {
            return true;
        }
        String message = error.getMessage();
        return error instanceof IOException && message != null && message.contains("Connection reset");
    }

    private int pickNode(RoutingTable current, byte[] key, int from, long now) {
        if (routing == Routing.ROUND_ROBIN || current.partitioner == null) {
            return current.anyUsable(Math.floorMod(nextNode.getAndIncrement(), current.size()), now);
        }
        int replicas = from > 0 ? Math.min(from, current.size()) : current.replicationFactor;
        return current.route(key, replicas, now);
    }

    private Context pickContext() {
        return contexts[Math.floorMod(nextContext.getAndIncrement(), contexts.length)];
    }

    private void checkEpoch(RoutingTable current, String epoch) {
        if (epoch != null) {
            try {
                if (Long.parseLong(epoch.trim()) > current.epoch) {
                    requestRefresh(true);
                }
            } catch (NumberFormatException e) {
                LOG.debug("ignoring a malformed {} header: '{}'", EPOCH_HEADER, epoch);
            }
        }
    }

    /** Starts a refresh unless one is running or (unless {@code always}) one ran a moment ago. */
    private void requestRefresh(boolean always) {
        if (routing == Routing.ROUND_ROBIN || closed) {
            return;
        }
        if (!always && System.nanoTime() - lastRefreshNanos < MIN_REFRESH_GAP_NANOS) {
            return;
        }
        if (refreshing.compareAndSet(false, true)) {
            fetchMap().onComplete(done -> {
                refreshing.set(false);
                if (done.failed()) {
                    LOG.debug("refreshing the cluster map failed; keeping the one of epoch {}", map.epoch, done.cause());
                }
            });
        }
    }

    /** Asks the usable nodes of the current map, then the others, then the seeds, for the map, until one answers. */
    private Future<Void> fetchMap() {
        lastRefreshNanos = System.nanoTime();
        RoutingTable current = map;
        long now = System.nanoTime();
        List<String> candidates = new ArrayList<>();
        for (int i = 0; i < current.size(); i++) {
            if (current.usable(i, now)) {
                candidates.add(current.nodes.get(i));
            }
        }
        for (String node : current.nodes) {
            if (!candidates.contains(node)) {
                candidates.add(node);
            }
        }
        for (String seed : seeds) {
            if (!candidates.contains(seed)) {
                candidates.add(seed);
            }
        }
        return fetchMap(candidates, 0, new ArrayList<>());
    }

    private Future<Void> fetchMap(List<String> candidates, int index, List<String> errors) {
        if (index == candidates.size()) {
            return Future.failedFuture(new KvClientException("no node gave the cluster map: " + errors, 0, null, null));
        }
        String node = candidates.get(index);
        return fetchMapFrom(node).compose(fresh -> {
            RoutingTable old = map;
            if (fresh.epoch >= old.epoch) {
                fresh.inheritLiveness(old);
                map = fresh;
                if (!fresh.nodes.equals(old.nodes)) {
                    LOG.info("cluster map of epoch {} from {}: {} with {} replicas per key", fresh.epoch, node, fresh.nodes,
                            fresh.replicationFactor);
                }
            }
            return Future.<Void>succeededFuture();
        }, error -> {
            errors.add(node + ": " + error.getMessage());
            return fetchMap(candidates, index + 1, errors);
        });
    }

    /** {@code GET /v0/cluster} from {@code node}, or its {@code /v0/status} if it has no cluster map route. */
    private Future<RoutingTable> fetchMapFrom(String node) {
        SocketAddress address;
        try {
            address = RoutingTable.address(node);
        } catch (IllegalArgumentException e) {
            return Future.failedFuture(e);
        }
        return fetchJson(address, "/v0/cluster").compose(clusterMap -> clusterMap != null
                ? Future.succeededFuture(RoutingTable.fromClusterMap(clusterMap, node + "/v0/cluster"))
                : fetchJson(address, "/v0/status").map(status -> {
                    if (status == null) {
                        throw new KvClientException("neither /v0/cluster nor /v0/status answered 200", 0, node, null);
                    }
                    return RoutingTable.fromStatus(status, node + "/v0/status");
                })).map(fresh -> fresh.size() == 1 ? fresh.withOnlyNode(node) : fresh);
    }

    /** The body of a 200 answer to {@code GET path}, or null for any other status. */
    private Future<String> fetchJson(SocketAddress address, String path) {
        RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setHost(address.host())
                .setPort(address.port()).setURI(path).setIdleTimeout(timeoutMillis);
        authenticate(request, null);
        return http.request(request).compose(req -> req.send())
                .compose(response -> response.body()
                        .map(body -> response.statusCode() == 200 ? body.toString(StandardCharsets.UTF_8) : null));
    }

    /** Adds this client's credentials to {@code request}, whose body is {@code body} (null: none). */
    private void authenticate(RequestOptions request, Buffer body) {
        String[] headers = credentials(request.getMethod().name(), request.getURI(), body == null ? null : body.getBytes());
        for (int i = 0; i < headers.length; i += 2) {
            request.putHeader(headers[i], headers[i + 1]);
        }
    }

    /** The headers proving this client's credentials on a request, as name/value pairs: a signature's, the token's, or none. */
    private String[] credentials(String method, String target, byte[] body) {
        if (signing != null) {
            return signing.headers(method, target, System.currentTimeMillis(),
                    body == null ? RequestSigning.EMPTY_BODY_DIGEST : RequestSigning.digest(body));
        }
        return authorization == null ? new String[0] : new String[] {HttpHeaders.AUTHORIZATION.toString(), authorization};
    }

    /** Settings of a {@link KvClient}, checked by {@link #build()}. */
    public static final class Builder {
        private final List<String> seeds = new ArrayList<>();
        private Vertx vertx;
        private Routing routing = Routing.REPLICA;
        private Duration timeout = Duration.ofSeconds(10);
        private Duration refreshInterval = Duration.ofSeconds(30);
        private int connectionsPerNode = 16;
        private int eventLoops = 1;
        private Path trustedCa;
        private TlsEngine tlsEngine = TlsEngine.JDK;
        private String token;
        private byte[] clusterSecret;

        private Builder() {
        }

        /**
         * The PEM certificate(s) of the CA that issued the nodes' certificates, for seeds given as
         * {@code https://} URLs (default: the JDK's trusted CAs).
         */
        public Builder trustedCa(Path pem) {
            this.trustedCa = pem;
            return this;
        }

        /**
         * The TLS implementation of connections to {@code https://} seeds; default {@link TlsEngine#JDK}.
         * {@link TlsEngine#OPENSSL} needs {@code io.netty:netty-tcnative-boringssl-static} on the class path.
         */
        public Builder tlsEngine(TlsEngine engine) {
            this.tlsEngine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        /** The token of a cluster started with {@code --client-token-file}, sent as {@code Authorization: Bearer}. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /**
         * Signs every request with the cluster secret (a line of the nodes' {@code --cluster-secret-file}) as a
         * node signs its own, which the client routes accept as they accept a client token; the clocks must
         * agree within 30 s. For operators' tools: the secret also opens the admin and internal routes, so an
         * application takes a {@link #token} instead. Not together with a token.
         */
        public Builder clusterSecret(String secret) {
            this.clusterSecret = secret == null ? null : secret.strip().getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /** Nodes to read the cluster map from, tried in order until one answers (any node will do). */
        public Builder seeds(String... urls) {
            return seeds(List.of(urls));
        }

        /** Nodes to read the cluster map from, tried in order until one answers (any node will do). */
        public Builder seeds(List<String> urls) {
            for (String url : urls) {
                RoutingTable.address(url.trim());
                seeds.add(url.trim());
            }
            return this;
        }

        /**
         * Runs on this Vert.x instance's event loops instead of creating (and later closing) its own.
         * Requests issued from one of its event loops are sent from that loop with no thread hop.
         *
         * @deprecated the client's API takes no Vert.x types: a client runs on event loops of its own,
         *             as many as {@link #eventLoops(int)} says
         */
        @Deprecated
        public Builder vertx(Vertx vertx) {
            this.vertx = vertx;
            return this;
        }

        /** Where requests go; default {@link Routing#REPLICA}. */
        public Builder routing(Routing routing) {
            this.routing = routing;
            return this;
        }

        /** How long to wait for a connection or for the next bytes of an answer; default 10 s. */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /**
         * The age at which the cluster map is read again, regardless of errors, by the next request
         * (which does not wait for it); 0 never; default 30 s.
         */
        public Builder refreshInterval(Duration interval) {
            this.refreshInterval = interval;
            return this;
        }

        /** Keep-alive connections per node at most; requests beyond wait for one; default 16. */
        public Builder connectionsPerNode(int connections) {
            this.connectionsPerNode = connections;
            return this;
        }

        /**
         * Event loops the client issues requests from when called from other threads: the size of
         * the Vert.x instance it creates, or the contexts it takes on the one given; default 1.
         */
        public Builder eventLoops(int eventLoops) {
            this.eventLoops = eventLoops;
            return this;
        }

        /**
         * A client ready to send: with {@link Routing#REPLICA}, once it has read the cluster map from one
         * of the seeds (tried in order, waiting up to the timeout for each).
         *
         * @throws IllegalArgumentException for no seeds or an out-of-range setting
         * @throws KvClientException        if no seed gave the cluster map
         */
        public KvClient build() {
            if (seeds.isEmpty()) {
                throw new IllegalArgumentException("a client needs at least one seed node URL");
            }
            if (timeout.isNegative() || timeout.isZero() || refreshInterval.isNegative()) {
                throw new IllegalArgumentException("timeout must be > 0 and refreshInterval >= 0, got " + timeout
                        + " and " + refreshInterval);
            }
            if (connectionsPerNode < 1 || eventLoops < 1) {
                throw new IllegalArgumentException("connectionsPerNode and eventLoops must be >= 1, got "
                        + connectionsPerNode + " and " + eventLoops);
            }
            if (routing == null) {
                throw new IllegalArgumentException("routing is null");
            }
            if (token != null && clusterSecret != null) {
                throw new IllegalArgumentException("a client sends a token or signs with the cluster secret, not both");
            }
            String scheme = seeds.get(0).substring(0, seeds.get(0).indexOf(':'));
            for (String seed : seeds) {
                if (!seed.startsWith(scheme + ":")) {
                    throw new IllegalArgumentException("seeds mix http and https: " + seeds);
                }
            }
            KvClient client = new KvClient(this);
            if (routing == Routing.REPLICA) {
                try {
                    // Each seed answers or times out within twice the timeout (connection, then answer).
                    client.refresh().toCompletableFuture().get(2 * (seeds.size() + 1) * timeout.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    client.close();
                    throw new KvClientException("no seed gave the cluster map within the timeout: " + seeds, 0, null, e);
                } catch (ExecutionException e) {
                    client.close();
                    Throwable cause = e.getCause();
                    throw cause instanceof KvClientException ? (KvClientException) cause
                            : new KvClientException("reading the cluster map failed: " + cause, 0, null, cause);
                } catch (InterruptedException e) {
                    client.close();
                    Thread.currentThread().interrupt();
                    throw new KvClientException("interrupted while reading the cluster map", 0, null, e);
                }
            }
            return client;
        }
    }
}
