package io.kvstore.server.http;

import io.kvstore.cluster.internal.repair.AntiEntropy;
import io.kvstore.cluster.internal.repair.RepairReport;
import io.kvstore.core.Dao;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.ScrubReport;
import io.kvstore.core.StoreHealth;
import io.kvstore.server.wire.Decimal;
import io.kvstore.server.wire.QueryParameters;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The admin routes of damage to this node's store. {@code POST /v0/admin/scrub} reads every table now
 * and checks its checksums ({@link Dao#scrub}), at {@code bytes-per-s} (default the repair scans'
 * rate; 0: no limit), and answers once the pass ended: 200 with a JSON report of what it checked and
 * the damaged tables it quarantined, 501 for an engine that cannot scrub; until then an
 * {@link IdleHeartbeat} keeps the connection open. {@code POST /v0/admin/heal[?start=S][&end=E]}
 * serves again the quarantined intervals within {@code [S, E)} ({@link Dao#healInterval}). A node
 * with another replica of their keys refetches each from every peer first, by an exchange of that
 * interval only ({@link AntiEntropy#heal}), and heals those every peer's exchange refetched; a lone
 * node, a replication factor of 1, or {@code refetch=false} heals at once, for an operator who accepts
 * what the store holds beneath the damaged tables or has written their keys again. Scrubs and heals
 * without refetching run one at a time on a thread of their own, not on the storage or worker threads
 * that requests need; refetching runs on the repair threads.
 */
public final class DamageHandler {
    private final Dao dao;
    private final AntiEntropy antiEntropy;
    private final Duration idleTimeout;
    private final long defaultBytesPerSecond;
    /** One thread at most, gone when idle: a node that is never asked to scrub keeps none. */
    private final ThreadPoolExecutor runner = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), task -> {
                Thread thread = new Thread(task, "kvstore-admin-scrub");
                thread.setDaemon(true);
                return thread;
            });

    public DamageHandler(Dao dao, AntiEntropy antiEntropy, Duration idleTimeout, long defaultBytesPerSecond) {
        this.dao = dao;
        this.antiEntropy = antiEntropy;
        this.idleTimeout = idleTimeout;
        this.defaultBytesPerSecond = defaultBytesPerSecond;
    }

    void heal(HttpServerRequest request) {
        if (request.method() != HttpMethod.POST) {
            request.response().putHeader("Allow", "POST");
            Responses.send(request, 405, "method " + request.method() + " not allowed on " + Routes.ADMIN_HEAL);
            return;
        }
        byte[] start = QueryParameters.bytes(request.query(), "start");
        byte[] end = QueryParameters.bytes(request.query(), "end");
        String refetch = QueryParameters.text(request.query(), "refetch");
        if (refetch != null && !refetch.equals("true") && !refetch.equals("false")) {
            throw new IllegalArgumentException("refetch '" + refetch + "' is neither true nor false");
        }
        Context context = Vertx.currentContext();
        if (!"false".equals(refetch) && antiEntropy.canRefetch()) {
            refetchAndHeal(request, context, start, end);
            return;
        }
        CompletableFuture<Integer> heal = CompletableFuture.supplyAsync(() -> {
            try {
                return dao.healInterval(start, end);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, runner);
        Future.fromCompletionStage(heal, context).onComplete(done -> {
            if (done.failed()) {
                Responses.failure(request, unwrap(done.cause()));
                return;
            }
            JsonObject json = new JsonObject().put("healed", done.result()).put("quarantined", quarantined());
            request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                    .end(json.encodePrettily() + "\n");
        });
    }

    /** Refetches the refused intervals within {@code [start, end)} from the peers, heals them and answers. */
    private void refetchAndHeal(HttpServerRequest request, Context context, byte[] start, byte[] end) {
        long heartbeat = IdleHeartbeat.start(context.owner(), request, idleTimeout);
        Future.fromCompletionStage(antiEntropy.heal(start, end), context).onComplete(done -> {
            context.owner().cancelTimer(heartbeat);
            if (done.failed()) {
                Responses.failure(request, unwrap(done.cause()));
                return;
            }
            RepairReport report = done.result();
            JsonObject json = new JsonObject().put("healed", report.healed()).put("quarantined", quarantined())
                    .put("refetch", AdminRepairHandler.json(report));
            request.response().setStatusCode(report.succeeded() ? 200 : 503)
                    .putHeader("Content-Type", "application/json")
                    .end(json.encodePrettily() + "\n");
        });
    }

    private JsonArray quarantined() {
        JsonArray left = new JsonArray();
        for (QuarantinedInterval interval : dao.health().quarantined()) {
            left.add(json(interval));
        }
        return left;
    }

    void scrub(HttpServerRequest request) {
        if (request.method() != HttpMethod.POST) {
            request.response().putHeader("Allow", "POST");
            Responses.send(request, 405, "method " + request.method() + " not allowed on " + Routes.ADMIN_SCRUB);
            return;
        }
        String rate = QueryParameters.text(request.query(), "bytes-per-s");
        long bytesPerSecond = rate == null ? defaultBytesPerSecond : Decimal.parse(rate, "bytes-per-s");
        Context context = Vertx.currentContext();
        long heartbeat = IdleHeartbeat.start(context.owner(), request, idleTimeout);
        long start = System.nanoTime();
        CompletableFuture<ScrubReport> scrub = CompletableFuture.supplyAsync(() -> {
            try {
                return dao.scrub(bytesPerSecond);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, runner);
        Future.fromCompletionStage(scrub, context).onComplete(done -> {
            context.owner().cancelTimer(heartbeat);
            if (done.failed()) {
                Throwable cause = unwrap(done.cause());
                if (cause instanceof UnsupportedOperationException) {
                    Responses.send(request, 501, cause.getMessage());
                } else {
                    Responses.failure(request, cause);
                }
                return;
            }
            JsonObject json = json(done.result()).put("durationMillis",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            request.response().setStatusCode(200).putHeader("Content-Type", "application/json")
                    .end(json.encodePrettily() + "\n");
        });
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** A scrub pass as JSON, for this route and {@code /v0/status}. */
    static JsonObject json(ScrubReport report) {
        JsonArray found = new JsonArray();
        for (QuarantinedInterval interval : report.quarantined()) {
            found.add(json(interval));
        }
        return new JsonObject()
                .put("startedAtMillis", report.startedAtMillis())
                .put("tables", report.tables())
                .put("bytes", report.bytes())
                .put("tablesChecked", report.tablesChecked())
                .put("bytesChecked", report.bytesChecked())
                .put("finished", report.finished())
                .put("quarantined", found);
    }

    /**
     * A refused interval as JSON: its bounds in base64 ({@code null}: open), readable as text in
     * {@code interval}, the quarantined file and what was wrong with it.
     */
    static JsonObject json(QuarantinedInterval interval) {
        byte[] from = interval.from();
        byte[] to = interval.to();
        return new JsonObject()
                .put("interval", interval.describe())
                .put("from", from == null ? null : Base64.getEncoder().encodeToString(from))
                .put("to", to == null ? null : Base64.getEncoder().encodeToString(to))
                .put("file", interval.file().toString())
                .put("reason", interval.reason())
                .put("sinceMillis", interval.sinceMillis());
    }

    /** What the store knows of damage to its files, for {@code /v0/status}. */
    static JsonObject json(StoreHealth health) {
        JsonArray quarantined = new JsonArray();
        for (QuarantinedInterval interval : health.quarantined()) {
            quarantined.add(json(interval));
        }
        return new JsonObject()
                .put("quarantined", quarantined)
                .put("stopped", health.stopped())
                .put("stoppedBy", health.stoppedBy())
                .put("scrubbedBytes", health.scrubbedBytes())
                .put("scrub", health.scrub() == null ? null : json(health.scrub()));
    }
}
