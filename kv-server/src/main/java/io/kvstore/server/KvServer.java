package io.kvstore.server;

import io.kvstore.cluster.ClockLease;
import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.LocalReplica;
import io.kvstore.cluster.ReplicaEndpoint;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.internal.HintedHandoff;
import io.kvstore.cluster.internal.membership.ClusterMapStore;
import io.kvstore.cluster.internal.membership.ChangeOperation;
import io.kvstore.cluster.internal.membership.MapChanges;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.NodeState;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.core.background.BackgroundWork;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.config.NetworkOptions;
import io.kvstore.server.config.SecurityOptions;
import io.kvstore.server.http.BodyMemoryBudget;
import io.kvstore.server.http.ClusterConsole;
import io.kvstore.server.http.ClusterRange;
import io.kvstore.server.http.ConsoleHandler;
import io.kvstore.server.http.DamageHandler;
import io.kvstore.server.http.EntityHandler;
import io.kvstore.server.http.HttpVerticle;
import io.kvstore.server.http.InternalHandler;
import io.kvstore.server.http.Overload;
import io.kvstore.server.http.RangeHandler;
import io.kvstore.server.http.ReplicationStatus;
import io.kvstore.server.http.RequestRouter;
import io.kvstore.server.http.RequestWindow;
import io.kvstore.server.http.SlowClientGuard;
import io.kvstore.server.http.StatusHandler;
import io.kvstore.server.http.StorageQueue;
import io.kvstore.server.internode.InternodeClients;
import io.kvstore.server.internode.MembershipClient;
import io.kvstore.server.membership.JoinFailure;
import io.kvstore.server.membership.Membership;
import io.kvstore.server.membership.MembershipHandler;
import io.kvstore.server.membership.NodeCleanup;
import io.kvstore.server.metrics.BackgroundMetrics;
import io.kvstore.server.metrics.ClusterMapMetrics;
import io.kvstore.server.metrics.CoordinatorMetrics;
import io.kvstore.server.metrics.MeteredReplica;
import io.kvstore.server.metrics.MetricsHandler;
import io.kvstore.server.metrics.NodeMetrics;
import io.kvstore.server.metrics.PeerMetrics;
import io.kvstore.server.metrics.ReplicationMetrics;
import io.kvstore.server.metrics.RequestMetrics;
import io.kvstore.server.metrics.StorageMetrics;
import io.kvstore.server.metrics.StoreHealthMetrics;
import io.kvstore.server.metrics.TlsMetrics;
import io.kvstore.server.security.Authenticator;
import io.kvstore.server.security.HandshakeFailureLog;
import io.kvstore.server.security.NodeSecurity;
import io.kvstore.server.security.RequestSignature;
import io.kvstore.server.wire.Routes;
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
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
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
     * several requests per system call and writes their answers in one; eight connections limit what
     * one timed-out connection, which is closed, takes down with it
     * (docs/TUNING.md#internode-connections).
     */
    private static final int INTERNODE_CONNECTIONS_PER_PEER = 8;
    private static final int INTERNODE_PIPELINING_LIMIT = 16;
    /** The engine {@code /v0/status} names for a store given to {@link #start(KvServerConfig, Dao)}. */
    public static final String CUSTOM_ENGINE = "custom";

    private final KvServerConfig config;
    private final Vertx vertx;
    private final Dao dao;
    private final Membership membership;
    private final WebClient client;
    private final StorageQueue storagePool;
    private final NodeRepair repair;
    private final NodeCleanup cleanup;
    private final MembershipHandler membershipHandler;
    private final CompletableFuture<Void> joined = new CompletableFuture<>();
    private HttpClient rangeClient;
    private final List<String> deployments = new ArrayList<>();
    private volatile int port;
    /** Connections the {@link SlowClientGuard}s closed, for {@code /v0/status}. */
    private final LongAdder slowConnectionsClosed = new LongAdder();
    private CompletableFuture<Void> stopped;

    private KvServer(KvServerConfig config, Vertx vertx, Dao dao, Membership membership, WebClient client,
            StorageQueue storagePool, NodeRepair repair, NodeCleanup cleanup, MembershipHandler membershipHandler) {
        this.config = config;
        this.vertx = vertx;
        this.dao = dao;
        this.membership = membership;
        this.client = client;
        this.storagePool = storagePool;
        this.repair = repair;
        this.cleanup = cleanup;
        this.membershipHandler = membershipHandler;
    }

    /**
     * Opens the store and starts listening. The stage completes once every event loop accepts
     * connections, or fails (with the store closed again) if the store cannot open or the port is taken.
     *
     * <p>The node's cluster map comes from its data directory if it kept one; else a node started with
     * {@link KvServerConfig#join()} takes the map of the member it joins through (its replication factor
     * and partitioner; one given explicitly with another value is an error) and asks to join once it
     * listens; else it takes the newest map listing it that another node of {@link KvServerConfig#cluster()}
     * holds, and only if none has one seeds the map of a new cluster from its options.
     */
    public static CompletionStage<KvServer> start(KvServerConfig config) {
        Dao dao;
        NodeBudget budget = NodeBudget.of(config);
        try {
            dao = config.engine().open(budget.storeOptions(config.storeOptions()));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return start(config, dao, config.engine().id(), budget);
    }

    /**
     * Starts a node as {@link #start(KvServerConfig)} does, over a store the caller opened instead of one of
     * {@link KvServerConfig#engine()}: an embedder's own {@link Dao}. The node takes it over and closes it
     * when it stops or fails to start; {@code /v0/status} names its engine {@value #CUSTOM_ENGINE}. The node's
     * clock lease, cluster map and hint store still live in {@link KvServerConfig#dataDirectory()}. The
     * store's own background work does not draw from the node's background budget unless the caller
     * opened it with one.
     */
    public static CompletionStage<KvServer> start(KvServerConfig config, Dao store) {
        return start(config, Objects.requireNonNull(store, "store"), CUSTOM_ENGINE, NodeBudget.of(config));
    }

    private static CompletionStage<KvServer> start(KvServerConfig config, Dao dao, String engine, NodeBudget budget) {
        ReplicationOptions replication = config.replication();
        NetworkOptions network = config.network();
        NodeSecurity security;
        HybridClock clock;
        ClusterMapStore maps;
        try {
            SecurityOptions files = config.security();
            security = NodeSecurity.load(files.clusterSecretFile(), files.adminTokenFile(), files.clientTokenFile(),
                    files.tlsCertificate(), files.tlsKey(), files.tlsCa(), files.tlsEngine());
            // The lease file lives beside the store's files: a clock and its data are moved together.
            clock = new HybridClock(System::currentTimeMillis, ClockLease.open(config.storeOptions().storage(), config.dataDirectory()));
            // A kept map wins; without one, a --cluster node first asks its peers (see findOrSeedMap).
            maps = ClusterMapStore.open(config.storeOptions().storage(), config.dataDirectory(), null);
            if (config.join() == null && maps.current() != null && !maps.current().contains(config.self())) {
                LOG.warn("node {} is not in the cluster map kept in {} ({}); taking the map of a --cluster node that"
                        + " lists it, else seeding a new one", config.self(), config.dataDirectory(), maps.current());
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(dao);
            return CompletableFuture.failedFuture(e);
        }
        NodeMetrics metrics = config.metrics() ? new NodeMetrics() : null;
        VertxOptions vertxOptions = new VertxOptions().setEventLoopPoolSize(network.eventLoops())
                .setPreferNativeTransport(network.nativeTransport());
        Vertx vertx = metrics == null ? Vertx.vertx(vertxOptions) : metrics.vertx(vertxOptions);
        Overload overload = new Overload(network.replicaTimeout());
        StorageQueue storagePool = config.storageThreads() == 0 ? null : new StorageQueue(config.storageThreads(), overload);
        Executor storage = storagePool == null ? Runnable::run : storagePool;
        WebClient client = InternodeClients.create(vertx, security,
                new WebClientOptions().setKeepAlive(true).setKeepAliveTimeout(InternodeClients.keepAliveSeconds(network.idleTimeout()))
                        .setTcpNoDelay(true)
                        .setPipelining(true).setPipeliningLimit(INTERNODE_PIPELINING_LIMIT)
                        .setConnectTimeout((int) network.replicaTimeout().toMillis()),
                new PoolOptions().setHttp1MaxSize(INTERNODE_CONNECTIONS_PER_PEER));
        LocalReplica local = new LocalReplica(dao, storage);
        Membership membership = new Membership(config, security, replication, vertx, dao, clock, local, client, maps,
                metrics == null ? (node, peer) -> peer : (node, peer) -> new MeteredReplica(peer, node, metrics.registry()));
        ClusterMap kept = maps.current();
        boolean member = kept != null && kept.contains(config.self()) && kept.state(config.self()) != NodeState.JOINING;
        boolean needsMap = config.join() == null && !(kept != null && kept.contains(config.self()));
        Future<Boolean> mapReady = config.join() != null && !member ? takeMapOf(config, replication, membership, maps)
                : needsMap ? findOrSeedMap(config, replication, membership, maps).map(false)
                : Future.succeededFuture(false);
        CompletableFuture<KvServer> started = new CompletableFuture<>();
        Future<Boolean> storeReady = mapReady.compose(joins -> joins ? vertx.executeBlocking(() -> dropLeftovers(config, dao))
                : Future.succeededFuture(false));
        storeReady.onComplete(ready -> {
            try {
                if (ready.failed()) {
                    throw ready.cause();
                }
                membership.open();
            } catch (Throwable e) {
                LOG.error("node {} cannot start: {}", config.self(), e.getMessage());
                try {
                    membership.close();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                closeQuietly(dao);
                client.close();
                vertx.close();
                if (storagePool != null) {
                    storagePool.shutdown();
                }
                started.completeExceptionally(e);
                return;
            }
            try {
                serve(config, security, engine, vertx, dao, clock, local, client, storagePool, overload, membership,
                        metrics, budget, ready.result(), started);
            } catch (RuntimeException e) {
                LOG.error("node {} cannot start", config.self(), e);
                started.completeExceptionally(e);
            }
        });
        return started;
    }

    /** The first map of the new cluster {@code config} describes: its nodes, replication factor and placement. */
    private static ClusterMap seed(KvServerConfig config) {
        return ClusterMap.seed(config.cluster(), config.replication().replicationFactor(config.cluster().size()),
                config.partitioner(), config.virtualNodes(), config.ringTokens());
    }

    /**
     * For a node started with {@code --cluster} that kept no map it is in: takes the newest map listing
     * it that one of the other {@code --cluster} nodes holds, else (none answers with one: the cluster
     * is new) seeds the map from its own options. Seeding alone would give a node that lost its data
     * directory a map of epoch 1 that may differ from its peers' (another token choice, say), which
     * nobody would ever replace, since nodes only adopt newer epochs. Seeds that start together all
     * seed, and seeding is deterministic, so they agree. Fails if this node's explicit options
     * contradict the map found.
     */
    private static Future<Void> findOrSeedMap(KvServerConfig config, ReplicationOptions replication, Membership membership,
                                              ClusterMapStore maps) {
        List<String> peers = new ArrayList<>(config.cluster());
        peers.remove(config.self());
        List<Future<ClusterMap>> answers = new ArrayList<>(peers.size());
        for (String peer : peers) {
            answers.add(membership.client().map(peer).otherwise((ClusterMap) null));
        }
        return Future.all(answers).compose(done -> {
            ClusterMap found = null;
            String from = null;
            List<String> without = new ArrayList<>();
            for (int i = 0; i < peers.size(); i++) {
                ClusterMap map = answers.get(i).result();
                if (map != null && !map.contains(config.self())) {
                    without.add(peers.get(i) + " (epoch " + map.epoch() + ")");
                } else if (map != null && (found == null || map.epoch() > found.epoch())) {
                    found = map;
                    from = peers.get(i);
                }
            }
            if (!without.isEmpty()) {
                LOG.warn("node {}: the cluster maps of {} do not list it", config.self(), String.join(", ", without));
            }
            ClusterMap chosen = found;
            String source = from;
            if (chosen != null) {
                List<String> conflicts = conflicts(config, replication, chosen);
                if (!conflicts.isEmpty()) {
                    return Future.failedFuture(new IllegalArgumentException("node " + config.self() + " kept no cluster map"
                            + " and the map of " + source + " lists it, but: " + String.join("; ", conflicts)));
                }
            }
            return Future.fromCompletionStage(CompletableFuture.runAsync(() -> {
                try {
                    if (chosen != null) {
                        LOG.info("node {} kept no cluster map it is in; took the map of epoch {} from {}",
                                config.self(), chosen.epoch(), source);
                        maps.reset(chosen);
                    } else {
                        // Allocating tokens for many seeds takes a moment: off the event loop.
                        maps.reset(seed(config));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, membership.worker()));
        });
    }

    /** This node's explicit options that contradict {@code map}: each says which and how; empty if none. */
    private static List<String> conflicts(KvServerConfig config, ReplicationOptions replication, ClusterMap map) {
        List<String> conflicts = new ArrayList<>();
        if (config.partitionerGiven() && !config.partitioner().equalsIgnoreCase(map.partitioner())) {
            conflicts.add("--partitioner " + config.partitioner() + " but the cluster uses " + map.partitioner());
        }
        if (config.virtualNodesGiven() && config.virtualNodes() != map.virtualNodes()) {
            conflicts.add("--vnodes " + config.virtualNodes() + " but the cluster uses " + map.virtualNodes());
        }
        if (config.ringTokensGiven() && config.ringTokens() != map.ringTokens()) {
            conflicts.add("--ring-tokens " + config.ringTokens().id() + " but the cluster uses " + map.ringTokens().id());
        }
        if (replication.replicationFactor() != 0 && replication.replicationFactor() != map.replicationFactor()) {
            conflicts.add("replication factor " + replication.replicationFactor() + " but the cluster uses "
                    + map.replicationFactor());
        }
        return conflicts;
    }

    /**
     * Empties the store of a node about to ask to join. It holds nothing of the cluster yet: what its
     * directory holds is left from an earlier membership (it was decommissioned or removed, or a join of
     * it failed), has missed the writes and deletes made since, and where a delete's tombstone has been
     * compacted away elsewhere would bring the deleted value back. The join streams it every key it
     * owns. Blocking. Returns true (the node asks to join).
     */
    private static boolean dropLeftovers(KvServerConfig config, Dao dao) throws IOException {
        boolean empty;
        try (CloseableIterator<Entry> any = dao.range(null, null)) {
            empty = !any.hasNext();
        }
        if (!empty) {
            long dropped = dao.cleanup(key -> false);
            LOG.warn("node {} asks to join with {} keys in {} left from an earlier membership (it left or was removed, or"
                    + " a join of it failed): dropped, since they missed what was written and deleted meanwhile; the join"
                    + " streams it every key it owns", config.self(), dropped, config.dataDirectory());
        }
        return true;
    }

    /**
     * Fetches the map of the member a joining node joins through, checks that this node's explicit
     * settings agree with it, and keeps it. Completes with whether this node must ask to join: not if
     * the map lists it already and this node kept a map before (it restarted during its own join).
     */
    private static Future<Boolean> takeMapOf(KvServerConfig config, ReplicationOptions replication, Membership membership,
                                             ClusterMapStore maps) {
        String member = config.join();
        return membership.client().map(member).recover(error -> Future.failedFuture(JoinFailure.explain(config, member, error)))
                .compose(map -> {
                    List<String> conflicts = conflicts(config, replication, map);
                    if (!conflicts.isEmpty()) {
                        return Future.failedFuture(new IllegalArgumentException("cannot join the cluster of " + member + ": "
                                + String.join("; ", conflicts)));
                    }
                    boolean listed = map.contains(config.self());
                    if (listed && maps.current() == null) {
                        return Future.failedFuture(new IllegalArgumentException("cannot join the cluster of " + member + ": "
                                + config.self() + " is already in its map as " + map.state(config.self()).id()));
                    }
                    try {
                        maps.adopt(map);
                    } catch (IOException e) {
                        return Future.failedFuture(e);
                    }
                    return Future.succeededFuture(!listed);
                });
    }

    private static void serve(KvServerConfig config, NodeSecurity security, String engine, Vertx vertx, Dao dao,
                              HybridClock clock, LocalReplica local, WebClient client, StorageQueue storagePool,
                              Overload overload, Membership membership, NodeMetrics metrics, NodeBudget budget, boolean joins,
                              CompletableFuture<KvServer> started) {
        ReplicationOptions replication = config.replication();
        NetworkOptions network = config.network();
        ClusterMap map = membership.map();
        // Anti-entropy follows the current map's owners; a node that is not one (it joins) takes the
        // entries streamed to it and repairs with no one until it is.
        NodeRepair repair = NodeRepair.create(vertx, config, security, dao, () -> membership.get().coordinator().partitioner(), clock,
                () -> membership.get().replicationFactor(), config.antiEntropyInterval(), budget.lane(BackgroundWork.REPAIR));
        membership.drawStreamsFrom(budget.lane(BackgroundWork.STREAM));
        HintedHandoff hints = membership.hints();
        if (hints != null) {
            hints.drawReplayFrom(budget.lane(BackgroundWork.HINTS));
            budget.lane(BackgroundWork.HINTS).backlog(() -> pendingHintBytes(hints, membership));
        }
        NodeCleanup cleanup = new NodeCleanup(dao, membership::map, config.self(), config.storeOptions().backgroundPriority());
        MapChanges changes = membership.changes(cleanup, config.streamUnreachableTimeout().toMillis());
        BodyMemoryBudget bodyBudget = new BodyMemoryBudget(network.maxBufferedBodyBytes(), overload);
        MembershipHandler membershipHandler = new MembershipHandler(membership, changes, cleanup, vertx, network.idleTimeout(),
                bodyBudget);
        KvServer server = new KvServer(config, vertx, dao, membership, client, storagePool, repair, cleanup, membershipHandler);
        if (!joins) {
            server.joined.complete(null);
        }
        AtomicInteger inFlight = new AtomicInteger();
        RequestWindow foreground = budget.start(vertx, inFlight);
        RangeHandler ranges = new RangeHandler(dao, network.maxKeyBytes());
        // Range streams have their own connections: a long stream must not hold up point requests
        // pipelined behind it on the internode client's.
        HttpClient rangeClient = InternodeClients.createHttpClient(vertx, security, new HttpClientOptions().setTcpNoDelay(true)
                .setConnectTimeout((int) network.replicaTimeout().toMillis()));
        server.rangeClient = rangeClient;
        ranges.cluster(new ClusterRange(() -> membership.map().readOwners(), config.self(), ranges, rangeClient,
                network.replicaTimeout().toMillis(), network.maxKeyBytes(), network.maxBodyBytes()));
        StorageMetrics storageMetrics = null;
        PeerMetrics peerMetrics = null;
        if (metrics != null) {
            storageMetrics = new StorageMetrics(dao, metrics.registry());
            StoreHealthMetrics.bind(dao, metrics.registry());
            server.bindNodeGauges(metrics.registry(), inFlight, bodyBudget, ranges, overload);
            ReplicationMetrics.bind(metrics.registry(), membership::readRepairs, membership.divergence(), membership.batches(),
                    membership.hints(), repair.antiEntropy());
            peerMetrics = new PeerMetrics(metrics.registry(), membership, membership.hints());
            ClusterMapMetrics.bind(metrics.registry(), () -> membership.get() == null ? null : membership.get().map());
            TlsMetrics.bind(metrics.registry(), config.security().tlsCertificate(), config.security().tlsCa());
            BackgroundMetrics.bind(metrics.registry(), budget.budget(), budget::controller);
        }
        RequestRouter router = new RequestRouter(inFlight, network.maxInFlight(), overload, membership.drain()::draining,
                new EntityHandler(membership, membership, network.replicaTimeout(), network.maxKeyBytes(),
                        network.maxBodyBytes(), bodyBudget, overload,
                        metrics == null ? CoordinatorMetrics.NONE : new CoordinatorMetrics(metrics.registry())),
                ranges,
                new InternalHandler(new ReplicaEndpoint(local, clock), network.maxKeyBytes(), network.maxBodyBytes(), bodyBudget,
                        membership, membership.divergence(), membership.drain()::draining),
                new StatusHandler(config, engine, dao, vertx.isNativeTransportEnabled() ? "native" : "nio", inFlight, bodyBudget,
                        ranges, server.slowConnectionsClosed, new ReplicationStatus(membership, replication,
                        membership.hints(), membership.drain()::draining), membership::map),
                repair.handler(config, bodyBudget), repair.adminHandler(config),
                new DamageHandler(dao, repair.antiEntropy(), network.idleTimeout(), config.repairScanBytesPerSecond()),
                new MetricsHandler(metrics, storageMetrics, peerMetrics), membershipHandler, foreground);
        router.console(new ConsoleHandler(new ClusterConsole(vertx, consoleClient(vertx, security, network), membership.client(),
                membership::map, config.self(), security.clusterSecrets() == null,
                Math.min(ClusterConsole.PEER_TIMEOUT_MILLIS, network.replicaTimeout().toMillis()))));
        Authenticator front = new Authenticator(router,
                security.clusterSecrets() == null ? null : new RequestSignature(security.clusterSecrets()),
                security.adminTokens(), security.clientTokens(), config.security().tlsCa() != null, System::currentTimeMillis);
        HttpServerOptions options = new HttpServerOptions()
                .setTcpNoDelay(true)
                .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, network.idleTimeout().toMillis()))
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setMaxHeaderSize(Routes.MAX_REQUEST_LINE_BYTES)
                .setMaxInitialLineLength(Routes.MAX_REQUEST_LINE_BYTES)
                .setDecompressionSupported(false)
                // The protocol is HTTP/1.1: a client asking to upgrade to HTTP/2 (h2c) carries on in
                // 1.1. (Vert.x also holds back a connection's handler until it knows, so the
                // SlowClientGuard would not see a connection that never completes a request.)
                .setHttp2ClearTextEnabled(false);
        security.tls().configureServer(options);
        // One listener per event loop, all on one port. Vert.x gives listeners asking for port 0 a
        // random port each, and listeners asking for the same negative number one shared random port.
        int listenPort = config.port() == 0 ? -1 : config.port();
        server.deploy(metrics == null ? front : new RequestMetrics(front, metrics.registry()), options, listenPort,
                        network.eventLoops(), overload)
                .compose(ok -> {
                    membership.start(changes::resume);
                    changes.resume();
                    // A member restarted after a drain: its peers take it back now rather than at their next probe.
                    return joins ? server.requestJoin()
                            : Future.fromCompletionStage(membership.drain().announceServing()).<Void>mapEmpty();
                })
                .onSuccess(ok -> {
                    LOG.info("kvstore node {} listening on port {} ({} engine, {} partitioner, cluster map epoch {} of {} nodes,"
                                    + " {} event loops on {}{})",
                            config.self(), server.port, engine, map.partitioner(), map.epoch(), map.members().size(),
                            network.eventLoops(), vertx.isNativeTransportEnabled() ? "the native transport" : "java.nio",
                            config.security().tlsCertificate() == null ? "" : ", TLS by " + config.security().tlsEngine().effective().id());
                    warnAboutOpenRoutes(config);
                    if (network.nativeTransport() && !vertx.isNativeTransportEnabled()) {
                        LOG.warn("native transport unavailable, using java.nio: {}", String.valueOf(vertx.unavailableNativeTransportCause()));
                    }
                    started.complete(server);
                })
                .onFailure(error -> server.stop().whenComplete((v, e) -> started.completeExceptionally(error)));
    }

    /**
     * The web console's client to the members: its own few connections, not pipelined, so that a slow
     * {@code /metrics} never queues replica calls behind it. Vert.x closes it with the node.
     */
    private static WebClient consoleClient(Vertx vertx, NodeSecurity security, NetworkOptions network) {
        return InternodeClients.create(vertx, security, new WebClientOptions().setKeepAlive(true)
                .setKeepAliveTimeout(InternodeClients.keepAliveSeconds(network.idleTimeout())).setTcpNoDelay(true)
                .setConnectTimeout((int) Math.min(ClusterConsole.PEER_TIMEOUT_MILLIS, network.replicaTimeout().toMillis())),
                new PoolOptions().setHttp1MaxSize(2));
    }

    /**
     * Asks the member given by {@code --join} to have this node join; fails if the claimant refuses.
     * Once accepted, {@link #joined()} follows the change to its end.
     */
    private Future<Void> requestJoin() {
        String member = config.join();
        return membership.client().change(member, ChangeOperation.JOIN.id(), config.self()).transform(sent -> {
            if (sent.failed()) {
                return Future.failedFuture(new IllegalStateException("cannot reach " + member + " to join: "
                        + sent.cause().getMessage(), sent.cause()));
            }
            MembershipClient.Answer answer = sent.result();
            if (answer.status() != 202) {
                return Future.failedFuture(new IllegalStateException("the join of " + config.self() + " through " + member
                        + " was refused (" + answer.status() + "): " + answer.body().trim()));
            }
            JsonObject change = new JsonObject(answer.body());
            LOG.info("node {} is joining the cluster (change {} at the claimant {})", config.self(), change.getLong("id"),
                    change.getString("claimant"));
            membershipHandler.awaitChange(change.getString("claimant"), change.getLong("id"), ChangeOperation.JOIN, config.self())
                    .onComplete(done -> {
                if (done.succeeded() && done.result().status() == 200) {
                    LOG.info("node {} joined the cluster", config.self());
                    joined.complete(null);
                } else {
                    String why = done.succeeded() ? done.result().body().trim() : String.valueOf(done.cause().getMessage());
                    LOG.error("node {} did not join the cluster: {}", config.self(), why);
                    joined.completeExceptionally(new IllegalStateException(why));
                }
            });
            return Future.succeededFuture();
        });
    }

    /**
     * Completes once this node, started with {@link KvServerConfig#join()}, is a {@code normal} member;
     * fails with the reason if its join failed. Complete at once for a node that did not ask to join.
     */
    public CompletionStage<Void> joined() {
        return joined;
    }

    /** This node's current cluster map as JSON (what {@code GET /v0/cluster} answers). */
    public String clusterMap() {
        return ClusterMapCodec.toJson(membership.map());
    }

    /** Bytes of the hints this node keeps for the members of its map. */
    private static long pendingHintBytes(HintedHandoff hints, Membership membership) {
        long bytes = 0;
        for (String node : membership.map().readOwners()) {
            bytes += hints.pendingHintBytes(node);
        }
        return bytes;
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
                                RangeHandler ranges, Overload overload) {
        for (Overload.Reason reason : Overload.Reason.values()) {
            FunctionCounter.builder("kv.requests.shed", overload, o -> o.refusedCount(reason))
                    .description("Requests refused with 503 + Retry-After because the node could not take them in time, by reason")
                    .tag("reason", reason.label()).register(registry);
        }
        Gauge.builder("kv.requests.in.flight", inFlight, AtomicInteger::get)
                .description("Requests being served (admission control answers 503 past --max-in-flight)")
                .strongReference(true).register(registry);
        Gauge.builder("kv.buffered.body", bodyBudget, BodyMemoryBudget::inUse).baseUnit("bytes")
                .description("Request body bytes held in memory").strongReference(true).register(registry);
        Gauge.builder("kv.range.streams.open", ranges, RangeHandler::openIterators)
                .description("Range streams open").strongReference(true).register(registry);
        FunctionCounter.builder("kv.slow.connections.closed", slowConnectionsClosed, LongAdder::sum)
                .description("Connections closed for sending a request too slowly").register(registry);
    }

    /** Says which routes are open: a warning for a cluster's internal routes, a note for admin routes. */
    private static void warnAboutOpenRoutes(KvServerConfig config) {
        if (config.security().clusterSecretFile() == null && config.cluster().size() > 1) {
            LOG.warn("no --cluster-secret-file: the internal routes of node {} are open, so anyone who can reach"
                    + " its port can write any key with any timestamp (docs/OPERATIONS.md#security)", config.self());
        }
        if (config.security().clusterSecretFile() == null && config.security().adminTokenFile() == null) {
            LOG.info("neither --admin-token-file nor --cluster-secret-file: admin routes ({}...) answer only"
                    + " loopback connections", Routes.ADMIN_PREFIX);
        }
    }

    private Future<Void> deploy(Handler<HttpServerRequest> router, HttpServerOptions options, int listenPort, int instances,
                                Overload overload) {
        HandshakeFailureLog handshakeFailures = new HandshakeFailureLog();
        return vertx.deployVerticle(() -> new HttpVerticle(router, options, listenPort,
                        new SlowClientGuard(vertx, config.network().requestTimeout(), config.network().idleTimeout(), slowConnectionsClosed),
                        handshakeFailures, overload, this::listening),
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
     * Drains, then stops: tells the peers this node is stopping (they leave it out of requests and hint
     * its writes until it serves again; at most a second), serves the
     * {@linkplain io.kvstore.server.config.NetworkOptions#drainGrace() drain grace} more with every
     * response asking its client to reconnect elsewhere, stops accepting connections, lets requests
     * in flight finish (up to 10 s), stops the background work (map pulls, probes, hint replay, streams,
     * anti-entropy, cleanup), then closes the internode clients, the coordinator and the store. Idempotent.
     */
    public synchronized CompletionStage<Void> stop() {
        if (stopped != null) {
            return stopped;
        }
        stopped = new CompletableFuture<>();
        long graceMillis = config.network().drainGrace().toMillis();
        membership.drain().announce().whenComplete((hadPeers, never) -> {
            if (hadPeers && graceMillis > 0) {
                // Serving on while each response asks its client to reconnect elsewhere (RequestRouter).
                CompletableFuture.delayedExecutor(graceMillis, TimeUnit.MILLISECONDS).execute(this::undeployAndClose);
            } else {
                undeployAndClose();
            }
        });
        return stopped;
    }

    private void undeployAndClose() {
        List<String> ids;
        synchronized (deployments) {
            ids = new ArrayList<>(deployments);
        }
        List<Future<Void>> undeployed = new ArrayList<>();
        for (String id : ids) {
            undeployed.add(vertx.undeploy(id));
        }
        // Stopping waits for threads and closing the store flushes: on its own thread, never on an event loop.
        Future.join(undeployed).onComplete(done -> new Thread(this::close, "kv-store-close").start());
    }

    /**
     * After the HTTP side is gone: the background work first, while the clients it calls peers with
     * are open (a call on a closed client fails, which would be logged as a fault of the peer), then
     * the clients and Vert.x, the storage threads, and the store.
     */
    private void close() {
        try {
            membership.close();
            repair.close();
            cleanup.close();
            client.close();
            CompletableFuture<Void> clientsClosed = new CompletableFuture<>();
            rangeClient.close().eventually(vertx::close).onComplete(closed -> clientsClosed.complete(null));
            clientsClosed.join();
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
