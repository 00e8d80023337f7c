package io.kvstore.server.security;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;
import java.security.MessageDigest;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs every request an internode web client sends ({@link RequestSignature}), as a web client
 * interceptor: the request's final method, target and body are known when it is created, and whoever
 * wrote the call need not know it is signed. A body the client streams cannot be hashed before it is
 * sent, and fails instead. A peer refusing the signature (another secret, a clock far apart) is logged
 * with its reason, at most every few seconds.
 */
public final class RequestSigner implements Handler<HttpContext<?>> {
    private static final Logger LOG = LoggerFactory.getLogger(RequestSigner.class);
    private final RequestSignature signature;
    private final LogLimiter refusals = new LogLimiter();
    private final LongSupplier clock;

    public RequestSigner(RequestSignature signature, LongSupplier clock) {
        this.signature = signature;
        this.clock = clock;
    }

    @Override
    public void handle(HttpContext<?> context) {
        if (context.phase() == ClientPhase.DISPATCH_RESPONSE) {
            int status = context.response().statusCode();
            if ((status == 401 || status == 403) && refusals.permit()) {
                Object body = context.response().body();
                LOG.warn("{}:{} refused this node's signed {} {}: {} {}", context.requestOptions().getHost(),
                        context.requestOptions().getPort(), context.requestOptions().getMethod(),
                        context.requestOptions().getURI().split("\\?")[0], status,
                        body instanceof Buffer ? ((Buffer) body).toString().strip() : "");
            }
        } else if (context.phase() == ClientPhase.CREATE_REQUEST) {
            Buffer body = bodyOf(context.body());
            if (context.body() != null && body == null) {
                context.fail(new IllegalStateException("cannot sign a streamed body of "
                        + context.requestOptions().getURI() + ": send it as a Buffer"));
                return;
            }
            RequestOptions options = context.requestOptions();
            String date = Long.toString(clock.getAsLong());
            String digest = body == null ? RequestSignature.EMPTY_BODY_DIGEST : digest(body);
            options.putHeader(RequestSignature.DATE_HEADER, date)
                    .putHeader(RequestSignature.CONTENT_HEADER, digest)
                    .putHeader(HttpHeaders.AUTHORIZATION, signature.sign(options.getMethod().name(), options.getURI(), date, digest));
        }
        context.next();
    }

    /** The bytes the web client will send for {@code body}, or null if it streams them. */
    private static Buffer bodyOf(Object body) {
        if (body instanceof Buffer) {
            return (Buffer) body;
        }
        if (body instanceof JsonObject) {
            return ((JsonObject) body).toBuffer();
        }
        if (body instanceof JsonArray) {
            return ((JsonArray) body).toBuffer();
        }
        return null;
    }

    private static String digest(Buffer body) {
        MessageDigest digest = RequestSignature.newDigest();
        if (body instanceof BufferInternal) {
            digest.update(((BufferInternal) body).getByteBuf().nioBuffer());
        } else {
            digest.update(body.getBytes());
        }
        return RequestSignature.encode(digest.digest());
    }
}
