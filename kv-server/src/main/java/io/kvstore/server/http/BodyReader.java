package io.kvstore.server.http;

import io.kvstore.server.security.RequestSignature;
import io.kvstore.server.wire.Responses;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Function;

/**
 * Reads a request body into one exactly sized array, within two limits: the per-request limit (over it:
 * 413, refused on the declared Content-Length before a byte is read, or counted while a chunked body
 * arrives) and the node's {@link BodyMemoryBudget} (no room: 503 + Retry-After). After a refusal the rest
 * of the body is dropped as it arrives and the connection closed ({@link Responses#sendAndClose}). The
 * bytes stay reserved until the consumer's future completes, i.e. until every replica that will get a
 * copy has it.
 *
 * <p>A client that sent {@code Expect: 100-continue} (curl does for bodies over 1 KiB) gets its
 * {@code 100 Continue} once the body has passed both limits, and a refusal instead of it when not, so a
 * refused body is never sent; without the 100 such a client waits a second or more before sending.
 * Any other expectation is refused with 417.
 *
 * <p>A body declared by a {@value RequestSignature#CONTENT_HEADER} header (every signed request has
 * one, covered by its signature) is hashed as it arrives and must match it: a body altered on the way is
 * refused with 403 and never reaches the consumer.
 */
public final class BodyReader {
    private final HttpServerRequest request;
    private final int limit;
    private final BodyMemoryBudget budget;
    private final Function<byte[], Future<?>> consumer;
    private byte[] body;
    private int size;
    private long reserved;
    private boolean refused;
    /** Null unless the request declares its body's digest. */
    private MessageDigest digest;
    private byte[] declaredDigest;

    private BodyReader(HttpServerRequest request, int limit, BodyMemoryBudget budget, Function<byte[], Future<?>> consumer) {
        this.request = request;
        this.limit = limit;
        this.budget = budget;
        this.consumer = consumer;
    }

    /** Must be called from the request handler, before the body starts arriving. */
    public static void read(HttpServerRequest request, int limit, BodyMemoryBudget budget, Function<byte[], Future<?>> consumer) {
        new BodyReader(request, limit, budget, consumer).start();
    }

    private void start() {
        String declared = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        int capacity = 0;
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.trim());
            } catch (NumberFormatException e) {
                refuse(400, "bad Content-Length '" + declared + "'");
                return;
            }
            if (length > limit || length < 0) {
                refuse(413, "request body of " + length + " bytes exceeds the limit of " + limit + " bytes");
                return;
            }
            capacity = (int) length;
        }
        String expectation = request.getHeader(HttpHeaders.EXPECT);
        if (expectation != null && !expectation.trim().equalsIgnoreCase("100-continue")) {
            refuse(417, "cannot meet the expectation '" + expectation + "'; only 100-continue is supported");
            return;
        }
        String signedDigest = request.getHeader(RequestSignature.CONTENT_HEADER);
        if (signedDigest != null) {
            try {
                declaredDigest = Base64.getUrlDecoder().decode(signedDigest);
            } catch (IllegalArgumentException e) {
                refuse(403, RequestSignature.CONTENT_HEADER + " is not base64url");
                return;
            }
            digest = RequestSignature.newDigest();
        }
        if (!reserve(capacity, capacity)) {
            return;
        }
        body = new byte[capacity];
        request.handler(this::onChunk);
        request.exceptionHandler(error -> releaseAll());
        request.endHandler(end -> onEnd());
        if (expectation != null && request.version() == HttpVersion.HTTP_1_1) { // never a 100 to HTTP/1.0
            request.response().writeContinue();
        }
    }

    private void onChunk(Buffer chunk) {
        if (refused) {
            return;
        }
        int needed = size + chunk.length();
        if (needed > limit) {
            refuse(413, "request body exceeds the limit of " + limit + " bytes");
            return;
        }
        if (needed > body.length) {
            // Chunked encoding: grow by doubling, reserving the growth first.
            int grown = (int) Math.min(limit, Math.max(needed, 2L * body.length));
            if (!reserve(grown - body.length, grown)) {
                return;
            }
            body = Arrays.copyOf(body, grown);
        }
        chunk.getBytes(0, chunk.length(), body, size);
        if (digest != null) {
            digest.update(body, size, chunk.length());
        }
        size = needed;
    }

    private void onEnd() {
        if (refused) {
            return;
        }
        if (digest != null && !MessageDigest.isEqual(digest.digest(), declaredDigest)) {
            refuse(403, "the body does not match its " + RequestSignature.CONTENT_HEADER + ": altered on the way");
            return;
        }
        byte[] value = size == body.length ? body : Arrays.copyOf(body, size);
        body = null;
        Future<?> done;
        try {
            done = consumer.apply(value);
        } catch (RuntimeException e) {
            releaseAll();
            throw e;
        }
        done.onComplete(ignored -> releaseAll());
    }

    /** Reserves {@code bytes} more for the body, held in an array of {@code arrayBytes}. */
    private boolean reserve(long bytes, long arrayBytes) {
        if (bytes == 0) {
            return true;
        }
        if (!budget.tryReserve(bytes, arrayBytes)) {
            refuse(503, "node is holding too many request bodies, retry later");
            return false;
        }
        reserved += bytes;
        return true;
    }

    private void releaseAll() {
        budget.release(reserved);
        reserved = 0;
        body = null;
    }

    private void refuse(int status, String reason) {
        refused = true;
        releaseAll();
        if (status == 503) {
            request.response().putHeader("Retry-After", Responses.RETRY_AFTER_SECONDS);
        }
        Responses.sendAndClose(request, status, reason);
    }
}
