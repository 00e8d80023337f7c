package io.kvstore.server;

import io.kvstore.cluster.ClockLease;
import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.HintedHandoff;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.LocalReplica;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.Replica;
import io.kvstore.cluster.ReplicaCoordinator;
import io.kvstore.cluster.ReplicaEndpoint;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kvstore node: the store, the coordinator and the HTTP front end on Vert.x event loops. Embeddable
 * (start and stop it from a Java program, as the tests do) and the core of the standalone jar.
 *
 * <pre>{@code
 * KvServer server = KvServer.start(KvServerConfig.builder().port(0).dataDirectory(dir).build())
 *         .toCompletableFuture().join();
 * int port = server.port();
 * ...
 * server.stop().toCompletableFuture().join();
 * }</pre>
 */
public final class KvServer {
    private static final Logger LOG = LoggerFactory.getLogger(KvServer.class);
    /**
     * Internode connections per peer, each carrying up to {@link #INTERNODE_PIPELINING_LIMIT} requests
     * at once: 128 in flight per peer, more than 64 client connections fan out. Pipelined, a peer reads
     * several requests per system call and writes their answers in one (docs/BENCHMARKS.md).
     */
    private static final int INTERNODE_CONNECTIONS_PER_PEER = 8;
    private static final int INTERNODE_PIPELINING_LIMIT = 16;
    /** How often each peer is pinged when there is no traffic to tell whether it is up. */
    static final Duration PROBE_INTERVAL = Duration.ofMillis(500);
    /** The subdirectory of the data directory holding the hint store. */
    static final String HINTS_DIRECTORY = "hints";
    /** Hints are few and small while the cluster is healthy: a small memtable keeps their log short. */
    private static final long HINTS_FLUSH_THRESHOLD_BYTES = 4L << 20;

    /**
     * How long an internode connection may sit unused in the pool: half the idle timeout, which the
     * peers are assumed to share, so that this node closes an idle connection before the peer does;
     * otherwise the peer may close one just as this node sends requests on it.
     */
    static int internodeKeepAliveSeconds(Duration idleTimeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, idleTimeout.toSeconds() / 2));
    }

    private final KvServerConfig config;
    private final Vertx vertx;
    private final Dao dao;
    private final ReplicaCoordinator coordinator;
    private final WebClient client;
    private final ExecutorService storagePool;
    private final FailureDetector detector;
    /** Null when hinted handoff is off or the node is alone. */
    private final HintedHandoff hints;
    private final NodeRepair repair;
    private HttpClient rangeClient;
    private final List<String> deployments = new ArrayList<>();
    private volatile int port;
    /** Connections the {@link SlowClientGuard}s closed, for {@code /v0/status}. */
    private final LongAdder slowConnectionsClosed = new LongAdder();
    private CompletableFuture<Void> stopped;

    private KvServer(KvServerConfig config, Vertx vertx, Dao dao, ReplicaCoordinator coordinator, WebClient client,
            ExecutorService storagePool, FailureDetector detector, HintedHandoff hints,
            NodeRepair repair) {
        this.detector = detector;
        this.hints = hints;
        this.config = config;
        this.vertx = vertx;
        this.dao = dao;
        this.coordinator = coordinator;
        this.client = client;
        this.storagePool = storagePool;
        this.repair = repair;
    }

    /**
     * Opens the store and starts listening. The stage completes once every event loop accepts
     * connections, or fails (with the store closed again) if the store cannot open or the port is taken.
     */
    public static CompletionStage<KvServer> start(KvServerConfig config) {
        ReplicationOptions replication = config.replication();
        Dao dao;
        HybridClock clock;
        try {
            // The lease file lives beside the store's files: a clock and its data are moved together.
            clock = new HybridClock(System::currentTimeMillis, ClockLease.open(config.dataDirectory()));
            dao = config.engine().open(config.storeOptions());
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        NodeMetrics metrics = config.metrics() ? new NodeMetrics() : null;
        VertxOptions vertxOptions = new VertxOptions().setEventLoopPoolSize(config.eventLoops())
                .setPreferNativeTransport(config.nativeTransport());
        Vertx vertx = metrics == null ? Vertx.vertx(vertxOptions) : metrics.vertx(vertxOptions);
        ExecutorService storagePool = config.storageThreads() == 0 ? null
                : Executors.newFixedThreadPool(config.storageThreads(), r -> {
                    Thread t = new Thread(r, "kv-storage");
                    t.setDaemon(true);
                    return t;
                });
        Executor storage = storagePool == null ? Runnable::run : storagePool;
        WebClient client = InternodeClients.create(vertx, config,
                new WebClientOptions().setKeepAlive(true).setKeepAliveTimeout(internodeKeepAliveSeconds(config.idleTimeout()))
                        .setTcpNoDelay(true)
                        .setPipelining(true).setPipeliningLimit(INTERNODE_PIPELINING_LIMIT)
                        .setConnectTimeout((int) config.replicaTimeout().toMillis()),
                new PoolOptions().setHttp1MaxSize(INTERNODE_CONNECTIONS_PER_PEER));
        Partitioner partitioner = Partitioners.create(config.partitioner(), config.cluster(), config.virtualNodes());
        LocalReplica local = new LocalReplica(dao, storage);
        List<Replica> replicas = new ArrayList<>();
        for (String node : config.cluster()) {
            if (node.equals(config.self())) {
                replicas.add(local);
            } else {
                Replica peer = new HttpReplica(client, node, config.replicaTimeout().toMillis());
                replicas.add(metrics == null ? peer : new MeteredReplica(peer, node, metrics.registry()));
            }
        }
        FailureDetector detector = new FailureDetector(config.cluster(), replicas, config.cluster().indexOf(config.self()),
                PROBE_INTERVAL, System::currentTimeMillis);
        HintedHandoff hints = null;
        if (replication.hints() && config.cluster().size() > 1) {
            try {
                hints = openHints(config, replication, replicas, detector);
            } catch (IOException | RuntimeException e) {
                LOG.error("cannot open the hint store in {}", config.dataDirectory().resolve(HINTS_DIRECTORY), e);
                closeQuietly(dao);
                client.close();
                vertx.close();
                if (storagePool != null) {
                    storagePool.shutdown();
                }
                return CompletableFuture.failedFuture(e);
            }
        }
        ReplicaCoordinator coordinator = ReplicaCoordinator.builder(partitioner, replicas, clock)
                .timeout(config.replicaTimeout())
                .options(replication)
                .failureDetector(detector)
                .hintedHandoff(hints)
                .build();
        if (config.cluster().size() > 1) {
            detector.start();
        }
        if (hints != null) {
            hints.start();
        }
        NodeRepair repair = NodeRepair.create(vertx, config, dao, partitioner, clock,
                replication.replicationFactor(config.cluster().size()), config.antiEntropyInterval(),
                config.repairScanBytesPerSecond());
        KvServer server = new KvServer(config, vertx, dao, coordinator, client, storagePool, detector, hints, repair);
        AtomicInteger inFlight = new AtomicInteger();
        BodyMemoryBudget bodyBudget = new BodyMemoryBudget(config.maxBufferedBodyBytes());
        RangeHandler ranges = new RangeHandler(dao, config.maxKeyBytes());
        // Range streams have their own connections: a long stream must not hold up point requests
        // pipelined behind it on the internode client's.
        HttpClient rangeClient = InternodeClients.createHttpClient(vertx, config, new HttpClientOptions().setTcpNoDelay(true)
                .setConnectTimeout((int) config.replicaTimeout().toMillis()));
        server.rangeClient = rangeClient;
        ranges.cluster(new ClusterRange(config.cluster(), config.self(), ranges, rangeClient,
                config.replicaTimeout().toMillis(), config.maxKeyBytes(), config.maxBodyBytes()));
        StorageMetrics storageMetrics = null;
        if (metrics != null) {
            storageMetrics = new StorageMetrics(dao, metrics.registry());
            server.bindNodeGauges(metrics.registry(), inFlight, bodyBudget, ranges);
            ReplicationMetrics.bind(metrics.registry(), coordinator, hints, repair.antiEntropy());
        }
        RequestRouter router = new RequestRouter(inFlight, config.maxInFlight(),
                new EntityHandler(coordinator, config.maxKeyBytes(), config.maxBodyBytes(), bodyBudget,
                        metrics == null ? CoordinatorMetrics.NONE : new CoordinatorMetrics(metrics.registry())),
                ranges,
                new InternalHandler(new ReplicaEndpoint(local, clock), config.maxKeyBytes(), config.maxBodyBytes(), bodyBudget),
                new StatusHandler(config, dao, vertx.isNativeTransportEnabled() ? "native" : "nio", inFlight, bodyBudget,
                        ranges, server.slowConnectionsClosed, new ReplicationStatus(coordinator, replication, detector, hints)),
                repair.handler(config, bodyBudget), repair.adminHandler(config),
                new MetricsHandler(metrics, storageMetrics));
        Authenticator front = new Authenticator(router,
                config.clusterSecrets() == null ? null : new RequestSignature(config.clusterSecrets()),
                config.adminTokens(), config.clientTokens(), config.tlsCa() != null, System::currentTimeMillis);
        HttpServerOptions options = new HttpServerOptions()
                .setTcpNoDelay(true)
                .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, config.idleTimeout().toMillis()))
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setMaxHeaderSize(16 << 10)
                .setMaxInitialLineLength(16 << 10)
                .setDecompressionSupported(false)
                // The protocol is HTTP/1.1: a client asking to upgrade to HTTP/2 (h2c) carries on in
                // 1.1. (Vert.x also holds back a connection's handler until it knows, so the
                // SlowClientGuard would not see a connection that never completes a request.)
                .setHttp2ClearTextEnabled(false);
        NodeTls.configureServer(config, options);
        // One listener per event loop, all on one port. Vert.x gives listeners asking for port 0 a
        // random port each, and listeners asking for the same negative number one shared random port.
        CompletableFuture<KvServer> started = new CompletableFuture<>();
        int listenPort = config.port() == 0 ? -1 : config.port();
        server.deploy(front, options, listenPort, config.eventLoops())
                .onSuccess(ok -> {
                    LOG.info("kvstore node {} listening on port {} ({} engine, {} partitioner, cluster of {}, {} event loops on {})",
                            config.self(), server.port, config.engine().id(), config.partitioner(), config.cluster().size(),
                            config.eventLoops(), vertx.isNativeTransportEnabled() ? "the native transport" : "java.nio");
                    warnAboutOpenRoutes(config);
                    if (config.nativeTransport() && !vertx.isNativeTransportEnabled()) {
                        LOG.warn("native transport unavailable, using java.nio: {}", String.valueOf(vertx.unavailableNativeTransportCause()));
                    }
                    started.complete(server);
                })
                .onFailure(error -> server.stop().whenComplete((v, e) -> started.completeExceptionally(error)));
        return started;
    }

    /**
     * The hint store: the node's own engine in {@value #HINTS_DIRECTORY} under the data directory, with
     * its own clock lease (removals of hints must supersede them across restarts).
     */
    private static HintedHandoff openHints(KvServerConfig config, ReplicationOptions replication, List<Replica> replicas,
                                           FailureDetector detector) throws IOException {
        Path directory = config.dataDirectory().resolve(HINTS_DIRECTORY);
        HybridClock hintClock = new HybridClock(System::currentTimeMillis, ClockLease.open(directory));
        DaoOptions store = config.storeOptions();
        Dao hintDao = Engine.LSM.open(DaoOptions.builder(directory)
                .syncPolicy(store.syncPolicy())
                .flushThresholdBytes(Math.min(HINTS_FLUSH_THRESHOLD_BYTES, store.flushThresholdBytes()))
                .backgroundPriority(store.backgroundPriority())
                .build());
        try {
            return new HintedHandoff(hintDao, hintClock, config.cluster(), replicas, detector, replication,
                    System::currentTimeMillis);
        } catch (IOException | RuntimeException e) {
            closeQuietly(hintDao);
            throw e;
        }
    }

    private static void closeQuietly(Dao dao) {
        try {
            dao.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot close {}", dao, e);
        }
    }

    /** The front end's own gauges: what /v0/status shows of requests, bodies, ranges and slow clients. */
    private void bindNodeGauges(MeterRegistry registry, AtomicInteger inFlight, BodyMemoryBudget bodyBudget,
                                RangeHandler ranges) {
        Gauge.builder("kv.requests.in.flight", inFlight, AtomicInteger::get)
                .description("Requests being served (admission control answers 503 past --max-in-flight)")
                .register(registry);
        Gauge.builder("kv.buffered.body", bodyBudget, BodyMemoryBudget::inUse).baseUnit("bytes")
                .description("Request body bytes held in memory").register(registry);
        Gauge.builder("kv.range.streams.open", ranges, RangeHandler::openIterators)
                .description("Range streams open").register(registry);
        FunctionCounter.builder("kv.slow.connections.closed", slowConnectionsClosed, LongAdder::sum)
                .description("Connections closed for sending a request too slowly").register(registry);
    }

    /** Says which routes are open: a warning for a cluster's internal routes, a note for admin routes. */
    private static void warnAboutOpenRoutes(KvServerConfig config) {
        if (config.clusterSecrets() == null && config.cluster().size() > 1) {
            LOG.warn("no --cluster-secret-file: the internal routes of node {} are open, so anyone who can reach"
                    + " its port can write any key with any timestamp (docs/OPERATIONS.md#security)", config.self());
        }
        if (config.clusterSecrets() == null && config.adminTokens() == null) {
            LOG.info("neither --admin-token-file nor --cluster-secret-file: admin routes ({}...) answer only"
                    + " loopback connections", Authenticator.ADMIN_PREFIX);
        }
    }

    private Future<Void> deploy(Handler<HttpServerRequest> router, HttpServerOptions options, int listenPort, int instances) {
        return vertx.deployVerticle(() -> new HttpVerticle(router, options, listenPort,
                        new SlowClientGuard(vertx, config.requestTimeout(), config.idleTimeout(), slowConnectionsClosed),
                        this::listening),
                        new DeploymentOptions().setInstances(instances))
                .map(id -> {
                    synchronized (deployments) {
                        deployments.add(id);
                    }
                    return null;
                });
    }

    private void listening(int actualPort) {
        port = actualPort;
    }

    /** The port this node listens on (the actual one when configured with 0). */
    public int port() {
        return port;
    }

    public KvServerConfig config() {
        return config;
    }

    /**
     * Stops accepting connections, lets requests in flight finish (up to 10 s), then closes the
     * coordinator, the internode client and the store. Idempotent.
     */
    public synchronized CompletionStage<Void> stop() {
        if (stopped != null) {
            return stopped;
        }
        stopped = new CompletableFuture<>();
        List<String> ids;
        synchronized (deployments) {
            ids = new ArrayList<>(deployments);
        }
        List<Future<Void>> undeployed = new ArrayList<>();
        for (String id : ids) {
            undeployed.add(vertx.undeploy(id));
        }
        // Closing the store flushes and may take a while: it runs on its own thread, never on an event loop.
        Future.join(undeployed)
                .onComplete(done -> client.close())
                .eventually(rangeClient::close)
                .eventually(vertx::close)
                .onComplete(closed -> {
                    Thread closer = new Thread(this::closeStore, "kv-store-close");
                    closer.start();
                });
        return stopped;
    }

    /** After the HTTP side is gone: the coordinator's timer, the storage threads, then the store. */
    private void closeStore() {
        try {
            coordinator.close();
            detector.close();
            if (hints != null) {
                hints.close();
            }
            repair.close();
            if (storagePool != null) {
                storagePool.shutdown();
                if (!storagePool.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOG.warn("storage calls still running after 10 s; closing the store anyway");
                }
            }
            dao.close();
            LOG.info("kvstore node {} stopped", config.self());
            stopped.complete(null);
        } catch (IOException | InterruptedException | RuntimeException e) {
            LOG.error("kvstore node {} did not close its store cleanly", config.self(), e);
            stopped.completeExceptionally(e);
        }
    }
}
