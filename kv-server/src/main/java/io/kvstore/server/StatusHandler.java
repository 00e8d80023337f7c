package io.kvstore.server;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** {@code GET /v0/status}: what this node is and how it is doing, as JSON (an extension of protocol v0). */
final class StatusHandler {
    private final KvServerConfig config;
    private final AtomicInteger inFlight;
    private final BodyMemoryBudget bodyBudget;
    private final RangeHandler ranges;
    private final String transport;
    private final LongAdder slowConnectionsClosed;
    private final ReplicationStatus replication;
    private final long startedMillis = System.currentTimeMillis();

    StatusHandler(KvServerConfig config, String transport, AtomicInteger inFlight, BodyMemoryBudget bodyBudget,
                  RangeHandler ranges, LongAdder slowConnectionsClosed, ReplicationStatus replication) {
        this.replication = replication;
        this.transport = transport;
        this.slowConnectionsClosed = slowConnectionsClosed;
        this.ranges = ranges;
        this.config = config;
        this.inFlight = inFlight;
        this.bodyBudget = bodyBudget;
    }

    void handle(HttpServerRequest request) {
        JsonObject status = new JsonObject()
                .put("node", config.self())
                .put("cluster", new JsonArray(config.cluster()))
                .put("partitioner", config.partitioner())
                .put("virtualNodes", config.virtualNodes())
                .put("engine", config.engine().id())
                .put("transport", transport)
                .put("dataDirectory", config.dataDirectory().toAbsolutePath().toString())
                .put("dataBytes", directoryBytes(config.dataDirectory()))
                .put("uptimeMillis", System.currentTimeMillis() - startedMillis)
                .put("requestsInFlight", inFlight.get() - 1) // not counting this one
                .put("bufferedBodyBytes", bodyBudget.inUse())
                .put("openRangeIterators", ranges.openIterators())
                .put("slowConnectionsClosed", slowConnectionsClosed.sum());
        replication.addTo(status);
        request.response().putHeader("Content-Type", "application/json").end(status.encodePrettily());
    }

    /** Bytes of the files directly in the data directory (the engines keep no subdirectories worth counting). */
    private static long directoryBytes(Path dir) {
        long total = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                if (Files.isRegularFile(f)) {
                    total += Files.size(f);
                }
            }
        } catch (IOException e) {
            return -1; // a file vanished under a compaction: report unknown rather than fail the status
        }
        return total;
    }
}
