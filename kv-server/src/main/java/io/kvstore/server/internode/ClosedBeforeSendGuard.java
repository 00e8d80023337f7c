package io.kvstore.server.internode;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;

/**
 * A web client interceptor for a request whose connection closes after the request is made on it and
 * before it is sent (a peer stopping): the request fails with the close, instead of being sent on the
 * closed connection, which in this Vert.x web client throws on an event loop. It also gives every
 * request an exception handler, since its failure reaches the caller through the answer.
 */
public final class ClosedBeforeSendGuard implements Handler<HttpContext<?>> {
    @Override
    public void handle(HttpContext<?> context) {
        if (context.phase() == ClientPhase.SEND_REQUEST) {
            HttpClientRequest request = context.clientRequest();
            request.exceptionHandler(failure -> {
            });
            if (request.response().failed()) {
                context.fail(request.response().cause());
                return;
            }
        }
        context.next();
    }
}
