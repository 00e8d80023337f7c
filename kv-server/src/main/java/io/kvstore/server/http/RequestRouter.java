package io.kvstore.server.http;

import io.kvstore.server.metrics.MetricsHandler;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front door: admission control (a bounded number of requests in flight, and no point request taken
 * while a queue stands, {@link Overload}; beyond, 503 with Retry-After at once, never an unbounded
 * queue), dispatch by path, and bad input turned into 400. It times the point requests it admits for
 * the background budget's {@link RequestWindow}.
 */
public final class RequestRouter implements Handler<HttpServerRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RequestRouter.class);
    private final AtomicInteger inFlight;
    private final int maxInFlight;
    private final Overload overload;
    private final BooleanSupplier draining;
    private final EntityHandler entity;
    private final RangeHandler range;
    private final InternalHandler internal;
    private final StatusHandler status;
    private final RepairHandler repair;
    private final AdminRepairHandler adminRepair;
    private final DamageHandler damage;
    private final MetricsHandler metrics;
    /** Serves every membership route. */
    private final Handler<HttpServerRequest> membership;
    /** Serves the web console's page and data; null: the node has none. */
    private volatile Handler<HttpServerRequest> console;
    private final RequestWindow window;

    /**
     * {@code draining}: whether this node is stopping, when its responses ask clients to close their
     * connections; {@code window}: records the latency of the point requests it admits.
     */
    public RequestRouter(AtomicInteger inFlight, int maxInFlight, Overload overload, BooleanSupplier draining,
            EntityHandler entity, RangeHandler range, InternalHandler internal, StatusHandler status, RepairHandler repair,
            AdminRepairHandler adminRepair, DamageHandler damage, MetricsHandler metrics,
            Handler<HttpServerRequest> membership, RequestWindow window) {
        this.draining = draining;
        this.window = window;
        this.metrics = metrics;
        this.inFlight = inFlight;
        this.maxInFlight = maxInFlight;
        this.overload = overload;
        this.entity = entity;
        this.range = range;
        this.internal = internal;
        this.status = status;
        this.repair = repair;
        this.adminRepair = adminRepair;
        this.damage = damage;
        this.membership = membership;
    }

    /** Has {@code console} serve {@value Routes#CONSOLE} and the {@value Routes#UI} files. */
    public RequestRouter console(Handler<HttpServerRequest> console) {
        this.console = console;
        return this;
    }

    @Override
    public void handle(HttpServerRequest request) {
        if (request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null) {
            String codings = String.join(",", request.headers().getAll(HttpHeaders.TRANSFER_ENCODING));
            int refusal = transferCodingRefusal(codings);
            if (refusal != 0) {
                Responses.sendAndClose(request, refusal, refusal == 501
                        ? "unsupported transfer coding in '" + codings + "': only chunked"
                        : "Transfer-Encoding '" + codings + "' does not end in chunked: the body cannot be framed");
                return;
            }
        }
        if (draining.getAsBoolean()) {
            // The client finishes this exchange and opens its next connection elsewhere, or here while the grace lasts.
            request.response().putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        }
        if (request.version() == HttpVersion.HTTP_1_1 && request.getHeader(HttpHeaders.HOST) == null) {
            Responses.send(request, 400, "an HTTP/1.1 request needs a Host header");
            return;
        }
        boolean point = isPoint(request.path());
        if (point && overload.overloaded()) {
            // Refused before its body is read or any work is queued: behind a standing queue it would time out.
            overload.refuse(request, Overload.Reason.QUEUE, "overloaded: requests queue here longer than "
                    + TimeUnit.NANOSECONDS.toMillis(overload.targetNanos()) + " ms, retry later");
            return;
        }
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            overload.refuse(request, Overload.Reason.IN_FLIGHT, "overloaded, retry later");
            return;
        }
        boolean[] released = new boolean[1];
        long admitted = System.nanoTime();
        Handler<Void> release = done -> {
            if (!released[0]) {
                released[0] = true;
                inFlight.decrementAndGet();
                if (point) {
                    window.record(System.nanoTime() - admitted);
                }
            }
        };
        request.response().endHandler(release);
        request.response().closeHandler(release);
        try {
            switch (request.path()) {
                case Routes.ENTITY:
                    entity.handle(request);
                    break;
                case Routes.ENTITIES:
                    range.handle(request);
                    break;
                case Routes.STATUS:
                    status.handle(request);
                    break;
                case Routes.METRICS:
                    metrics.handle(request);
                    break;
                case Routes.INTERNAL_ENTITY:
                    internal.handle(request);
                    break;
                case Routes.INTERNAL_ENTITIES:
                    range.handleInternal(request);
                    break;
                case Routes.WRITES:
                    internal.handleWrites(request);
                    break;
                case Routes.READS:
                    internal.handleReads(request);
                    break;
                case Routes.PING:
                    internal.ping(request);
                    break;
                case Routes.ADMIN_REPAIR:
                    adminRepair.handle(request);
                    break;
                case Routes.ADMIN_SCRUB:
                    damage.scrub(request);
                    break;
                case Routes.ADMIN_HEAL:
                    damage.heal(request);
                    break;
                case Routes.CLUSTER:
                case Routes.DECOMMISSION:
                case Routes.NODES:
                case Routes.MAP:
                case Routes.MEMBERSHIP_CHANGE:
                case Routes.MEMBERSHIP_STREAM:
                case Routes.CLEANUP:
                case Routes.MEMBERSHIP_CLEANUP:
                case Routes.MEMBERSHIP_EPOCH:
                case Routes.DRAINING:
                case Routes.CHANGES:
                    membership.handle(request);
                    break;
                default:
                    if (request.path().startsWith(Routes.REPAIR_PREFIX)) {
                        repair.handle(request);
                    } else if (request.path().startsWith(Routes.CHANGES + "/")) {
                        membership.handle(request);
                    } else if (console != null && (request.path().equals(Routes.CONSOLE) || Routes.isConsoleFile(request.path()))) {
                        console.handle(request);
                    } else {
                        Responses.send(request, 400, "unknown path " + request.path());
                    }
            }
        } catch (IllegalArgumentException e) {
            // bad percent-encoding, ack/from, base64 key, timestamp: the client's mistake
            Responses.send(request, 400, String.valueOf(e.getMessage()));
        } catch (RuntimeException e) {
            // Our mistake; the request is still answered, so it does not hold its in-flight slot until its
            // connection times out.
            LOG.error("{} {} failed", request.method(), request.uri(), e);
            Responses.send(request, 500, "internal error");
        }
    }

    /** Whether a request of {@code path} reads or writes single keys (or a batch of them): the foreground proper. */
    private static boolean isPoint(String path) {
        return switch (path) {
            case Routes.ENTITY, Routes.INTERNAL_ENTITY, Routes.WRITES, Routes.READS -> true;
            default -> false;
        };
    }

    /**
     * The status refusing a request with these transfer codings (RFC 9112 6.1, 6.3), or 0 if they are
     * just {@code chunked}: 400 when chunked is not the last (the body cannot be framed; the decoder would
     * read none, for {@code identity} say, and parse the body's bytes as the next request), 501 when
     * chunked is last but another coding is applied too. Either way the connection is closed.
     */
    static int transferCodingRefusal(String codings) {
        if (codings.trim().equalsIgnoreCase("chunked")) {
            return 0;
        }
        String[] each = codings.split(",");
        return each[each.length - 1].trim().equalsIgnoreCase("chunked") ? 501 : 400;
    }
}
