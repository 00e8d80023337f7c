package io.kvstore.server.http;

import io.kvstore.cluster.internal.repair.AntiEntropy;
import io.kvstore.cluster.internal.repair.RepairProgress;
import io.kvstore.cluster.internal.repair.RepairReport;
import io.kvstore.cluster.internal.repair.RepairSummary;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /v0/admin/repair}: a full anti-entropy exchange of this node with every peer, now, after
 * refetching and healing the key intervals its store refuses ({@link AntiEntropy#repairAll}).
 * Answers once every exchange ended: 200 with a JSON summary, or 503 naming each peer that could not
 * be repaired (unreachable, killed meanwhile) with the same summary of what the others did.
 *
 * <p>Until then the connection would carry nothing, for minutes on a large store, and be closed as
 * idle: an {@link IdleHeartbeat} keeps it open. With {@code ?async=true} it answers {@code 202} with the
 * run's id at once instead; {@code GET /v0/admin/repair[?id=N]} reports a run's progress meanwhile
 * ({@link AdminOperations}), whichever way it was started.
 */
public final class AdminRepairHandler {
    private final AntiEntropy antiEntropy;
    private final Duration idleTimeout;
    private final AdminOperations runs;

    public AdminRepairHandler(AntiEntropy antiEntropy, Duration idleTimeout, String self) {
        this.antiEntropy = antiEntropy;
        this.idleTimeout = idleTimeout;
        this.runs = new AdminOperations("repair", self);
    }

    void handle(HttpServerRequest request) {
        if (request.method() == HttpMethod.GET) {
            runs.status(request);
            return;
        }
        if (request.method() != HttpMethod.POST) {
            request.response().putHeader("Allow", "GET, POST");
            Responses.send(request, 405, "method " + request.method() + " not allowed on " + Routes.ADMIN_REPAIR);
            return;
        }
        Boolean async = AdminOperations.async(request);
        if (async == null) {
            return;
        }
        Context context = Vertx.currentContext();
        AdminOperation run = runs.start();
        CompletionStage<RepairReport> repair = antiEntropy.repairAll(progress(run)).whenComplete((report, error) -> {
            if (error != null) {
                run.failed(String.valueOf(error.getMessage()), null);
            } else if (report.succeeded()) {
                run.succeeded(json(report));
            } else {
                JsonObject summary = json(report);
                run.failed(summary.getString("error") + ": " + String.join("; ", reasons(report)), summary);
            }
        });
        if (async) {
            AdminOperations.accepted(request, run);
            return;
        }
        long heartbeat = IdleHeartbeat.start(context.owner(), request, idleTimeout);
        Future.fromCompletionStage(repair, context).onComplete(done -> {
            context.owner().cancelTimer(heartbeat);
            if (done.failed()) {
                Responses.failure(request, done.cause());
                return;
            }
            RepairReport report = done.result();
            request.response().setStatusCode(report.succeeded() ? 200 : 503)
                    .putHeader("Content-Type", "application/json")
                    .end(json(report).encodePrettily() + "\n");
        });
    }

    /** The run's counters, fed by the exchanges as they go. */
    private static RepairProgress progress(AdminOperation run) {
        return new RepairProgress() {
            @Override
            public void planned(int exchanges) {
                run.planned(exchanges);
            }

            @Override
            public void treesBuilt(long keys) {
                run.scanned(keys);
            }

            @Override
            public void copied(boolean sent, long entries, long bytes) {
                run.done(entries, bytes);
            }

            @Override
            public void exchangeEnded(String peer, boolean succeeded) {
                run.partDone();
            }
        };
    }

    private static List<String> reasons(RepairReport report) {
        List<String> reasons = new ArrayList<>();
        for (Map.Entry<String, String> failure : report.failures().entrySet()) {
            reasons.add(failure.getKey() + ": " + failure.getValue());
        }
        return reasons;
    }

    /**
     * A run as JSON: the totals, {@code peers} (the exchanges over the whole key space), {@code heal}
     * when the store refused intervals at the start (the exchanges that refetched them, and how many
     * keys they compared), and the failures.
     */
    static JsonObject json(RepairReport report) {
        JsonArray peers = new JsonArray();
        long segments = 0;
        long wireBytes = 0;
        for (RepairSummary s : report.summaries()) {
            wireBytes += s.wireBytes();
            if (!report.heals().contains(s)) {
                segments += s.segments();
                peers.add(json(s));
            }
        }
        JsonObject json = new JsonObject()
                .put("node", report.node())
                .put("segmentsCompared", segments)
                .put("keysSent", report.keysSent())
                .put("keysReceived", report.keysReceived())
                .put("wireBytes", wireBytes)
                .put("durationMillis", TimeUnit.NANOSECONDS.toMillis(report.durationNanos()))
                .put("peers", peers);
        if (report.refused() > 0) {
            json.put("heal", heal(report));
        }
        if (!report.succeeded()) {
            JsonObject failed = new JsonObject();
            for (Map.Entry<String, String> failure : report.failures().entrySet()) {
                failed.put(failure.getKey(), failure.getValue());
            }
            json.put("error", "could not repair with " + String.join(", ", report.failures().keySet()))
                    .put("failedPeers", failed);
        }
        return json;
    }

    /** The refetching of the refused intervals: how many, how many healed, the keys compared, each exchange. */
    private static JsonObject heal(RepairReport report) {
        JsonArray exchanges = new JsonArray();
        long treeKeys = 0;
        long versionsCompared = 0;
        long keysReceived = 0;
        for (RepairSummary s : report.heals()) {
            treeKeys += s.treeKeys();
            versionsCompared += s.versionsCompared();
            keysReceived += s.keysReceived();
            exchanges.add(json(s));
        }
        return new JsonObject()
                .put("intervals", report.refused())
                .put("healed", report.healed())
                .put("treeKeys", treeKeys)
                .put("versionsCompared", versionsCompared)
                .put("keysReceived", keysReceived)
                .put("exchanges", exchanges);
    }

    private static JsonObject json(RepairSummary s) {
        JsonObject json = new JsonObject().put("peer", s.peer());
        if (!s.interval().isAll()) {
            json.put("interval", s.interval().describe());
        }
        return json
                .put("treeKeys", s.treeKeys())
                .put("segmentsCompared", s.segments())
                .put("segmentsDiffering", s.segmentsDiffering())
                .put("hashesCompared", s.hashesCompared())
                .put("versionsCompared", s.versionsCompared())
                .put("keysSent", s.keysSent())
                .put("keysReceived", s.keysReceived())
                .put("bytesSent", s.bytesSent())
                .put("bytesReceived", s.bytesReceived())
                .put("wireBytes", s.wireBytes())
                .put("durationMillis", TimeUnit.NANOSECONDS.toMillis(s.durationNanos()));
    }
}
