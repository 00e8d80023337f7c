package io.kvstore.server;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front door: admission control (a bounded number of requests in flight, beyond which 503 with
 * Retry-After, never an unbounded queue), dispatch by path, and bad input turned into 400.
 */
final class RequestRouter implements Handler<HttpServerRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RequestRouter.class);
    private final AtomicInteger inFlight;
    private final int maxInFlight;
    private final EntityHandler entity;
    private final RangeHandler range;
    private final InternalHandler internal;
    private final StatusHandler status;

    RequestRouter(AtomicInteger inFlight, int maxInFlight, EntityHandler entity, RangeHandler range,
            InternalHandler internal, StatusHandler status) {
        this.inFlight = inFlight;
        this.maxInFlight = maxInFlight;
        this.entity = entity;
        this.range = range;
        this.internal = internal;
        this.status = status;
    }

    @Override
    public void handle(HttpServerRequest request) {
        String framingError = request.getHeader(HttpHeaders.TRANSFER_ENCODING) == null ? null
                : transferCodingError(String.join(",", request.headers().getAll(HttpHeaders.TRANSFER_ENCODING)));
        if (framingError != null) {
            Responses.sendAndClose(request, framingError.startsWith("unsupported") ? 501 : 400, framingError);
            return;
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
                case "/v0/entity":
                    entity.handle(request);
                    break;
                case "/v0/entities":
                    range.handle(request);
                    break;
                case "/v0/status":
                    status.handle(request);
                    break;
                case InternalProtocol.PATH:
                    internal.handle(request);
                    break;
                default:
                    Responses.send(request, 400, "unknown path " + request.path());
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
     * Why a request's {@code Transfer-Encoding} leaves its body unframed or undecodable (RFC 9112 6.1,
     * 6.3), or null if it is absent or just {@code chunked}. Any other value is refused and the connection
     * closed: the decoder would otherwise read no body at all (for {@code identity}, say) and parse the
     * body's bytes as the next request.
     */
    static String transferCodingError(String transferEncoding) {
        if (transferEncoding == null || transferEncoding.trim().equalsIgnoreCase("chunked")) {
            return null;
        }
        String[] codings = transferEncoding.split(",");
        if (codings[codings.length - 1].trim().equalsIgnoreCase("chunked")) {
            return "unsupported transfer coding in '" + transferEncoding + "': only chunked";
        }
        return "Transfer-Encoding '" + transferEncoding + "' does not end in chunked: the body cannot be framed";
    }
}
