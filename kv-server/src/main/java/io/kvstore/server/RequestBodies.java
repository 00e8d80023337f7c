package io.kvstore.server;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

/**
 * Reads a request body up to a limit: a declared Content-Length over it is refused before a byte is
 * read, and a chunked body is counted as it arrives, so an oversized body never sits in memory.
 */
final class RequestBodies {
    private RequestBodies() {
    }

    static void read(HttpServerRequest request, int limit, Handler<Buffer> onBody) {
        String declared = request.getHeader("Content-Length");
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.trim());
            } catch (NumberFormatException e) {
                Responses.send(request, 400, "bad Content-Length '" + declared + "'");
                return;
            }
            if (length > limit) {
                Responses.tooLarge(request, limit);
                return;
            }
        }
        Buffer body = Buffer.buffer();
        boolean[] refused = new boolean[1];
        request.handler(chunk -> {
            if (refused[0]) {
                return;
            }
            if (body.length() + chunk.length() > limit) {
                refused[0] = true;
                Responses.tooLarge(request, limit);
                return;
            }
            body.appendBuffer(chunk);
        });
        request.endHandler(end -> {
            if (!refused[0]) {
                onBody.handle(body);
            }
        });
    }
}
