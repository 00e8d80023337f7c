package io.kvstore.server.http;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.DiskSpace;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * {@code GET /v0/status}: what this node is and how it is doing, as JSON (an extension of protocol v0).
 * Everything comes from memory ({@link Dao#properties()} for the store), so it is answered on the event loop.
 */
public final class StatusHandler {
    private final Dao dao;
    private final KvServerConfig config;
    private final String engine;
    private final AtomicInteger inFlight;
    private final BodyMemoryBudget bodyBudget;
    private final RangeHandler ranges;
    private final String transport;
    private final LongAdder slowConnectionsClosed;
    private final ReplicationStatus replication;
    private final Supplier<ClusterMap> map;
    private final long startedMillis = System.currentTimeMillis();

    public StatusHandler(KvServerConfig config, String engine, Dao dao, String transport, AtomicInteger inFlight,
                  BodyMemoryBudget bodyBudget, RangeHandler ranges, LongAdder slowConnectionsClosed, ReplicationStatus replication,
                  Supplier<ClusterMap> map) {
        this.map = map;
        this.dao = dao;
        this.replication = replication;
        this.transport = transport;
        this.slowConnectionsClosed = slowConnectionsClosed;
        this.ranges = ranges;
        this.config = config;
        this.engine = engine;
        this.inFlight = inFlight;
        this.bodyBudget = bodyBudget;
    }

    /**
     * The disk as the store last saw it: {@code writesRefused} with its reason while the disk is full,
     * the space its flushes and compactions hold, and {@code writesStopped}, the failure (naming its file)
     * that stopped writes until a restart.
     */
    private static JsonObject disk(DiskSpace space) {
        return new JsonObject().put("freeBytes", space.freeBytes()).put("minFreeBytes", space.minFreeBytes())
                .put("writesRefused", space.refusesWrites()).put("reason", space.refusal())
                .put("reservedBytes", space.reservedBytes())
                .put("compactionWaitsForSpace", space.compactionWaitsForSpace())
                .put("writesStopped", space.writesStopped());
    }

    void handle(HttpServerRequest request) {
        DaoProperties storage = dao.properties();
        // Membership and placement come from the cluster map, not this node's options: a node that joined,
        // or found its peers' map, runs on theirs whatever it was started with.
        ClusterMap map = this.map.get();
        JsonObject status = new JsonObject()
                .put("node", config.self())
                .put("cluster", new JsonArray(map.urls()))
                .put("partitioner", map.partitioner())
                .put("virtualNodes", map.virtualNodes())
                .put("ringTokens", map.ringTokens().id())
                .put("engine", engine)
                .put("transport", transport)
                .put("tlsEngine", config.security().tlsCertificate() == null ? null : config.security().tlsEngine().effective().id())
                .put("dataDirectory", config.dataDirectory().toAbsolutePath().toString())
                .put("dataBytes", storage.tableBytes())
                .put("storage", new JsonObject()
                        .put("memtableBytes", storage.memtableBytes())
                        .put("frozenMemtables", storage.frozenMemtables())
                        .put("tableBytes", storage.tableBytes())
                        .put("tablesPerLevel", new JsonArray(storage.tablesPerLevel()))
                        .put("compactionsPending", storage.compactionsPending())
                        .put("flushes", storage.flushes())
                        .put("compactions", storage.compactions())
                        .put("backgroundErrors", storage.backgroundErrors())
                        .put("writeStalls", storage.writeStalls())
                        .put("walSyncs", storage.walSyncs())
                        .put("bloomNegatives", storage.bloomNegatives()))
                .put("disk", disk(dao.diskSpace()))
                .put("damage", DamageHandler.json(dao.health()))
                .put("uptimeMillis", System.currentTimeMillis() - startedMillis)
                .put("requestsInFlight", inFlight.get() - 1) // not counting this one
                .put("bufferedBodyBytes", bodyBudget.inUse())
                .put("openRangeIterators", ranges.openIterators())
                .put("slowConnectionsClosed", slowConnectionsClosed.sum());
        replication.addTo(status);
        request.response().putHeader("Content-Type", "application/json").end(status.encodePrettily());
    }
}
