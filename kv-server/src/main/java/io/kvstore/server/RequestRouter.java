package io.kvstore.server;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front door: admission control (a bounded number of requests in flight, beyond which 503 with
 * Retry-After, never an unbounded queue), dispatch by path, and bad input turned into 400.
 */
final class RequestRouter implements Handler<HttpServerRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RequestRouter.class);
    static final String ENTITY = "/v0/entity";
    static final String ENTITIES = "/v0/entities";
    static final String STATUS = "/v0/status";
    static final String METRICS = "/metrics";
    /** The route label of a request for any other path. */
    static final String UNKNOWN_ROUTE = "other";
    private final AtomicInteger inFlight;
    private final int maxInFlight;
    private final EntityHandler entity;
    private final RangeHandler range;
    private final InternalHandler internal;
    private final StatusHandler status;
    private final RepairHandler repair;
    private final AdminRepairHandler adminRepair;
    private final MetricsHandler metrics;
    private final MembershipHandler membership;

    RequestRouter(AtomicInteger inFlight, int maxInFlight, EntityHandler entity, RangeHandler range,
            InternalHandler internal, StatusHandler status, RepairHandler repair, AdminRepairHandler adminRepair,
            MetricsHandler metrics, MembershipHandler membership) {
        this.metrics = metrics;
        this.inFlight = inFlight;
        this.maxInFlight = maxInFlight;
        this.entity = entity;
        this.range = range;
        this.internal = internal;
        this.status = status;
        this.repair = repair;
        this.adminRepair = adminRepair;
        this.membership = membership;
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
        if (request.version() == HttpVersion.HTTP_1_1 && request.getHeader(HttpHeaders.HOST) == null) {
            Responses.send(request, 400, "an HTTP/1.1 request needs a Host header");
            return;
        }
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            request.response().setStatusCode(503).putHeader("Retry-After", "1").end("overloaded, retry later\n");
            return;
        }
        boolean[] released = new boolean[1];
        Handler<Void> release = done -> {
            if (!released[0]) {
                released[0] = true;
                inFlight.decrementAndGet();
            }
        };
        request.response().endHandler(release);
        request.response().closeHandler(release);
        try {
            switch (request.path()) {
                case ENTITY:
                    entity.handle(request);
                    break;
                case ENTITIES:
                    range.handle(request);
                    break;
                case STATUS:
                    status.handle(request);
                    break;
                case METRICS:
                    metrics.handle(request);
                    break;
                case InternalCodec.PATH:
                    internal.handle(request);
                    break;
                case InternalCodec.RANGE_PATH:
                    range.handleInternal(request);
                    break;
                case BatchCodec.WRITES_PATH:
                    internal.handleWrites(request);
                    break;
                case BatchCodec.READS_PATH:
                    internal.handleReads(request);
                    break;
                case InternalCodec.PING_PATH:
                    internal.ping(request);
                    break;
                case AdminRepairHandler.PATH:
                    adminRepair.handle(request);
                    break;
                case MembershipHandler.CLUSTER_PATH:
                case MembershipHandler.DECOMMISSION_PATH:
                case MembershipHandler.NODES_PATH:
                case MembershipHandler.MAP_PATH:
                case MembershipHandler.CHANGE_PATH:
                case MembershipHandler.STREAM_PATH:
                case MembershipHandler.CLEANUP_PATH:
                case MembershipHandler.CLEANUP_REQUEST_PATH:
                    membership.handle(request);
                    break;
                default:
                    if (request.path().startsWith(RepairProtocol.PREFIX)) {
                        repair.handle(request);
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

    /**
     * The route labels of the request metrics ({@link RequestMetrics}): every path this router serves, the
     * prefix of the repair routes, and {@link #UNKNOWN_ROUTE} last, so that the labels stay bounded.
     */
    static final List<String> ROUTES = List.of(ENTITY, ENTITIES, STATUS, METRICS, InternalCodec.PATH,
            InternalCodec.RANGE_PATH, BatchCodec.WRITES_PATH, BatchCodec.READS_PATH, InternalCodec.PING_PATH, AdminRepairHandler.PATH,
            MembershipHandler.CLUSTER_PATH, MembershipHandler.DECOMMISSION_PATH, MembershipHandler.NODES_PATH,
            MembershipHandler.MAP_PATH, MembershipHandler.CHANGE_PATH, MembershipHandler.STREAM_PATH,
            MembershipHandler.CLEANUP_PATH, MembershipHandler.CLEANUP_REQUEST_PATH, RepairProtocol.PREFIX,
            UNKNOWN_ROUTE);
    private static final Map<String, Integer> ROUTE_INDEX = IntStream.range(0, ROUTES.size()).boxed()
            .collect(Collectors.toUnmodifiableMap(ROUTES::get, i -> i));
    private static final int REPAIR_ROUTE = ROUTES.indexOf(RepairProtocol.PREFIX);

    /** The index in {@link #ROUTES} of the route serving {@code path}. */
    static int routeIndex(String path) {
        Integer known = ROUTE_INDEX.get(path);
        if (known != null) {
            return known;
        }
        return path.startsWith(RepairProtocol.PREFIX) ? REPAIR_ROUTE : ROUTES.size() - 1;
    }

    /** The label of the route serving {@code path}. */
    static String route(String path) {
        return ROUTES.get(routeIndex(path));
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
