package io.kvstore.server;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v0/entities?start=S[&end=E]}: this node's entries in {@code [S, E)}, streamed as one HTTP
 * chunk per entry ({@code key \n value}), tombstones skipped. Back-pressure: entries are written only
 * while the socket's write queue has room; when it is full the stream waits for the drain event, so
 * memory stays flat whatever the range. The iterator is closed at the end, on error and when the client
 * goes away.
 *
 * <p>The iterator is advanced on the event loop: it reads memory-mapped tables, so a step costs a
 * page-cache hit. A worker-thread variant that read batches ahead was tried and ran a 64 MiB server
 * out of heap on 1 MiB values (LargeRangeStreamingTest); stepping only while the socket has room is
 * what keeps memory flat.
 */
final class RangeHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RangeHandler.class);

    private final Dao dao;
    private final int maxKeyBytes;

    RangeHandler(Dao dao, int maxKeyBytes) {
        this.dao = dao;
        this.maxKeyBytes = maxKeyBytes;
    }

    void handle(HttpServerRequest request) {
        if (request.method() != HttpMethod.GET) {
            request.response().putHeader("Allow", "GET");
            Responses.send(request, 405, "method " + request.method() + " not allowed on /v0/entities");
            return;
        }
        String query = request.query();
        byte[] from = QueryParameters.bytes(query, "start");
        byte[] to = QueryParameters.bytes(query, "end");
        if (from == null || from.length == 0) {
            Responses.send(request, 400, "missing or empty start");
            return;
        }
        if (to != null && to.length == 0) {
            Responses.send(request, 400, "empty end (leave it out for an open end)");
            return;
        }
        if (from.length > maxKeyBytes || (to != null && to.length > maxKeyBytes)) {
            Responses.send(request, 400, "range bound exceeds the key limit of " + maxKeyBytes + " bytes");
            return;
        }
        CloseableIterator<Entry> entries;
        try {
            entries = dao.range(from, to);
        } catch (IOException | RuntimeException e) {
            Responses.failure(request, e);
            return;
        }
        HttpServerResponse response = request.response();
        response.setChunked(true).setStatusCode(200).putHeader("Content-Type", "application/octet-stream");
        new Stream(request, response, entries).pump();
    }

    /** One streaming response: writes while there is room, resumes on drain, always closes the iterator. */
    private static final class Stream {
        private final HttpServerRequest request;
        private final HttpServerResponse response;
        private final CloseableIterator<Entry> entries;

        Stream(HttpServerRequest request, HttpServerResponse response, CloseableIterator<Entry> entries) {
            this.request = request;
            this.response = response;
            this.entries = entries;
            // The router owns the response's close handler (admission control); the connection's is free.
            request.connection().closeHandler(gone -> entries.close());
            response.exceptionHandler(error -> entries.close());
            response.drainHandler(room -> pump());
        }

        void pump() {
            try {
                while (!response.writeQueueFull()) {
                    if (response.closed()) {
                        entries.close();
                        return;
                    }
                    if (!entries.hasNext()) {
                        entries.close();
                        response.end();
                        return;
                    }
                    Entry e = entries.next();
                    if (e.isTombstone()) {
                        continue;
                    }
                    byte[] key = e.key();
                    byte[] value = e.value();
                    response.write(Buffer.buffer(key.length + 1 + value.length)
                            .appendBytes(key).appendByte((byte) '\n').appendBytes(value));
                }
            } catch (RuntimeException e) {
                // Headers are gone already: the only honest signal left is to cut the connection.
                LOG.error("range {} failed while streaming", request.uri(), e);
                entries.close();
                request.connection().close();
            }
        }
    }
}
