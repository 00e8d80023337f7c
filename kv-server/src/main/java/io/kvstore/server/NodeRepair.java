package io.kvstore.server;

import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.internal.repair.AntiEntropy;
import io.kvstore.cluster.internal.repair.RepairResponder;
import io.kvstore.core.Dao;
import io.kvstore.core.background.BudgetLane;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.config.NetworkOptions;
import io.kvstore.server.http.AdminRepairHandler;
import io.kvstore.server.http.BodyMemoryBudget;
import io.kvstore.server.http.RepairHandler;
import io.kvstore.server.internode.HttpRepairPeer;
import io.kvstore.server.internode.InternodeClients;
import io.kvstore.server.security.NodeSecurity;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Anti-entropy on a node: its {@link RepairResponder} (served to peers by {@link RepairHandler}), the
 * exchanges it drives ({@link AdminRepairHandler}, and periodically), the threads they scan on and the
 * connections they use.
 *
 * <p>Repair has its own internode client, without pipelining: a poll for a tree being built holds its
 * connection for seconds, and must not hold up client requests pipelined behind it.
 */
final class NodeRepair {
    /** Per request; a page or a batch is small, and a tree poll answers within {@link RepairHandler#TREE_POLL_MILLIS}. */
    private static final long REQUEST_TIMEOUT_MILLIS = 60_000;
    private static final int SCAN_THREADS = 2;
    private static final int CONNECTIONS_PER_PEER = 2;

    private final ExecutorService executor;
    private final WebClient client;
    private final RepairResponder responder;
    private final AntiEntropy antiEntropy;

    private NodeRepair(ExecutorService executor, WebClient client, RepairResponder responder, AntiEntropy antiEntropy) {
        this.executor = executor;
        this.client = client;
        this.responder = responder;
        this.antiEntropy = antiEntropy;
    }

    /**
     * Sets up repair for the node {@code config.self()} among the owners {@code placement} gives at each
     * moment, keeping {@code replicationFactor} replicas in sync; exchanges with every peer every
     * {@code interval} ({@link Duration#ZERO}: only on demand).
     */
    static NodeRepair create(Vertx vertx, KvServerConfig config, NodeSecurity security, Dao dao, Supplier<Partitioner> placement,
            HybridClock clock,
            IntSupplier replicationFactor, Duration interval, BudgetLane scans) {
        // Repair scans the whole store: at the background priority it takes the cores requests leave idle.
        ExecutorService executor = Executors.newFixedThreadPool(SCAN_THREADS,
                config.storeOptions().backgroundPriority().threadFactory("kv-repair"));
        WebClient client = InternodeClients.create(vertx, security,
                new WebClientOptions().setKeepAlive(true).setTcpNoDelay(true)
                        .setKeepAliveTimeout(InternodeClients.keepAliveSeconds(config.network().idleTimeout()))
                        .setConnectTimeout((int) config.network().replicaTimeout().toMillis()),
                new PoolOptions().setHttp1MaxSize(CONNECTIONS_PER_PEER));
        RepairResponder responder = new RepairResponder(config.self(), dao, placement, executor, clock, scans);
        AntiEntropy antiEntropy = new AntiEntropy(responder,
                node -> new HttpRepairPeer(client, node, REQUEST_TIMEOUT_MILLIS, config.network().maxKeyBytes()),
                replicationFactor, AntiEntropy.DEFAULT_DEPTH, executor);
        if (!interval.isZero()) {
            // Even alone: a node that joins later is a peer of the next run.
            antiEntropy.start(interval);
        }
        return new NodeRepair(executor, client, responder, antiEntropy);
    }

    RepairHandler handler(KvServerConfig config, BodyMemoryBudget bodyBudget) {
        NetworkOptions network = config.network();
        return new RepairHandler(responder, network.maxKeyBytes(), network.maxBodyBytes(), bodyBudget, network.idleTimeout());
    }

    AntiEntropy antiEntropy() {
        return antiEntropy;
    }

    AdminRepairHandler adminHandler(KvServerConfig config) {
        return new AdminRepairHandler(antiEntropy, config.network().idleTimeout(), config.self());
    }

    /** Stops the periodic runs and the scans (an exchange under way fails); call before the store closes. */
    void close() throws InterruptedException {
        antiEntropy.close();
        client.close();
        executor.shutdownNow();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }
}
