package io.kvstore.server.http;

import io.kvstore.cluster.Quorum;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Entry;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.KeyLimit;
import io.kvstore.server.wire.QueryParameters;
import io.kvstore.server.wire.RangeFrames;
import io.kvstore.server.wire.Responses;
import io.kvstore.server.wire.Routes;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v0/entities?start=S[&end=E]}: this node's entries in {@code [S, E)}, streamed as one HTTP
 * chunk per entry ({@code key \n value}), tombstones skipped; with {@code scope=cluster}, the
 * {@link ClusterRange} instead. Also the internal range route ({@link Routes#INTERNAL_ENTITIES}):
 * this node's versions, tombstones included, as {@link RangeFrames}, for a peer's cluster range.
 *
 * <p>The iterator reads files, so it runs on a worker thread, a batch at a time; the event loop only
 * writes the batch. Back-pressure: the next batch is read only while the socket's write queue has room;
 * when it is full the stream waits for the drain event, so memory stays flat (one batch) whatever the
 * size of the range. The iterator is closed at the end, on error and when the client goes away, always
 * on the thread that owns it at that moment.
 *
 * <p>Memory: one batch (at most {@value #BATCH_BYTES} bytes plus one entry) on top of what the engine's
 * merge holds, so a range far larger than the heap streams ({@code RangeMemoryTest}).
 */
public final class RangeHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RangeHandler.class);
    /** A batch ends after this many entries or bytes, whichever comes first. */
    private static final int BATCH_ENTRIES = 256;
    private static final int BATCH_BYTES = 256 << 10;

    private final Dao dao;
    private final KeyLimit keys;
    /** Set once at start-up, before the first request. */
    private ClusterRange cluster;
    /** Range iterators opened and not closed yet: reported by /v0/status, so a leak is visible. */
    private final AtomicInteger openIterators = new AtomicInteger();

    public RangeHandler(Dao dao, int maxKeyBytes) {
        this.dao = dao;
        this.keys = new KeyLimit(maxKeyBytes);
    }

    public void cluster(ClusterRange cluster) {
        this.cluster = cluster;
    }

    public int openIterators() {
        return openIterators.get();
    }

    /** {@code /v0/entities}. */
    void handle(HttpServerRequest request) {
        if (!isGet(request)) {
            return;
        }
        String query = request.query();
        byte[] from = QueryParameters.bytes(query, "start");
        byte[] to = QueryParameters.bytes(query, "end");
        if (!validBounds(request, from, to)) {
            return;
        }
        String scope = QueryParameters.text(query, "scope");
        if (scope == null || scope.equals("node")) {
            stream(request, from, to, PUBLIC);
        } else if (scope.equals("cluster")) {
            String ack = QueryParameters.text(query, "ack");
            List<String> nodes = cluster.nodes();
            Quorum quorum = Quorum.parse(ack == null ? "1" : ack, QueryParameters.text(query, "from"), nodes.size());
            cluster.handle(request, nodes, from, to, quorum);
        } else {
            Responses.send(request, 400, "scope must be node or cluster, got '" + scope + "'");
        }
    }

    /** {@link Routes#INTERNAL_ENTITIES}: bounds in base64url. */
    void handleInternal(HttpServerRequest request) {
        if (!isGet(request)) {
            return;
        }
        String query = request.query();
        String start = QueryParameters.text(query, InternalCodec.START_PARAM);
        String end = QueryParameters.text(query, InternalCodec.END_PARAM);
        byte[] from = start == null ? null : InternalCodec.decodeKey(start);
        byte[] to = end == null ? null : InternalCodec.decodeKey(end);
        if (validBounds(request, from, to)) {
            stream(request, from, to, FRAMES);
        }
    }

    private static boolean isGet(HttpServerRequest request) {
        if (request.method() == HttpMethod.GET) {
            return true;
        }
        request.response().putHeader("Allow", "GET");
        Responses.send(request, 405, "method " + request.method() + " not allowed on " + request.path());
        return false;
    }

    private boolean validBounds(HttpServerRequest request, byte[] from, byte[] to) {
        if (from == null || from.length == 0) {
            Responses.send(request, 400, "missing or empty start");
            return false;
        }
        if (to != null && to.length == 0) {
            Responses.send(request, 400, "empty end (leave it out for an open end)");
            return false;
        }
        String refusal = keys.refusal(from, "start");
        if (refusal == null && to != null) {
            refusal = keys.refusal(to, "end");
        }
        if (refusal != null) {
            Responses.send(request, 400, refusal);
            return false;
        }
        return true;
    }

    /** How a stream writes entries. */
    private interface Encoding {
        /** Adds {@code entry} to {@code batch}; returns the bytes added, 0 if it is left out. */
        int add(List<Buffer> batch, Entry entry);

        /** What ends a complete stream, or null. */
        Buffer end();
    }

    /** The public format: one chunk per live entry, {@code key \n value}; tombstones left out. */
    private static final Encoding PUBLIC = new Encoding() {
        @Override
        public int add(List<Buffer> batch, Entry e) {
            if (e.isTombstone()) {
                return 0;
            }
            byte[] key = e.key();
            byte[] value = e.value();
            batch.add(Buffer.buffer(key.length + 1 + value.length).appendBytes(key).appendByte((byte) '\n').appendBytes(value));
            return key.length + 1 + value.length;
        }

        @Override
        public Buffer end() {
            return null;
        }
    };

    /** The internal format: every version as a {@link RangeFrames} frame, a batch in one buffer. */
    private static final Encoding FRAMES = new Encoding() {
        @Override
        public int add(List<Buffer> batch, Entry e) {
            if (batch.isEmpty()) {
                batch.add(Buffer.buffer(BATCH_BYTES / 4));
            }
            Buffer frames = batch.get(0);
            int before = frames.length();
            return RangeFrames.append(frames, e).length() - before;
        }

        @Override
        public Buffer end() {
            return RangeFrames.end();
        }
    };

    private void stream(HttpServerRequest request, byte[] from, byte[] to, Encoding encoding) {
        Context context = Vertx.currentContext();
        context.executeBlocking(() -> open(from, to), false).onComplete(opened -> {
            if (opened.failed()) {
                Responses.failure(request, opened.cause());
                return;
            }
            HttpServerResponse response = request.response();
            if (response.closed()) {
                context.executeBlocking(() -> closeQuietly(opened.result()), false);
                return;
            }
            response.setChunked(true).setStatusCode(200).putHeader("Content-Type", "application/octet-stream");
            new Stream(context, request, response, opened.result(), encoding).fetch();
        });
    }

    /** Worker thread: opens an iterator, counted until {@link #closeQuietly} closes it. */
    CloseableIterator<Entry> open(byte[] from, byte[] to) throws IOException {
        CloseableIterator<Entry> entries = dao.range(from, to);
        openIterators.incrementAndGet();
        return entries;
    }

    /** Worker thread: closes an iterator {@link #open} returned, exactly once. */
    Void closeQuietly(CloseableIterator<Entry> entries) {
        try {
            entries.close();
        } catch (RuntimeException e) {
            LOG.warn("closing a range iterator failed", e);
        } finally {
            openIterators.decrementAndGet();
        }
        return null;
    }

    /**
     * One streaming response. Its state changes on the event loop only; the iterator is touched by one
     * worker task at a time ({@code reading}), never by the event loop.
     */
    private final class Stream {
        private final Context context;
        private final HttpServerRequest request;
        private final HttpServerResponse response;
        private final CloseableIterator<Entry> entries;
        private final Encoding encoding;
        private boolean reading;
        private boolean done;

        Stream(Context context, HttpServerRequest request, HttpServerResponse response, CloseableIterator<Entry> entries,
               Encoding encoding) {
            this.encoding = encoding;
            this.context = context;
            this.request = request;
            this.response = response;
            this.entries = entries;
            // Also called when the connection closes before the response ends. (Not the connection's
            // close handler: it has one owner, the SlowClientGuard.)
            response.exceptionHandler(error -> finish());
            response.drainHandler(room -> fetch());
        }

        /** Reads the next batch on a worker, unless one is being read or the socket is full. */
        void fetch() {
            if (done || reading || response.writeQueueFull()) {
                return;
            }
            reading = true;
            context.executeBlocking(this::readBatch, false).onComplete(read -> {
                reading = false;
                if (read.failed()) {
                    // The headers are gone already: the only honest signal left is to cut the connection.
                    LOG.error("range {} failed while streaming", request.uri(), read.cause());
                    finish();
                    request.connection().close();
                    return;
                }
                if (done) { // the client went away while the batch was being read
                    closeIterator();
                    return;
                }
                List<Buffer> batch = read.result();
                for (int i = 0; i < batch.size(); i++) {
                    response.write(batch.get(i));
                }
                if (batch.isEmpty()) {
                    finish();
                    Buffer end = encoding.end();
                    if (end == null) {
                        response.end();
                    } else {
                        response.end(end);
                    }
                } else {
                    fetch();
                }
            });
        }

        /** Worker thread: up to one batch of entries; empty when the range is exhausted. */
        private List<Buffer> readBatch() {
            List<Buffer> batch = new ArrayList<>();
            int bytes = 0;
            int entryCount = 0;
            while (entryCount < BATCH_ENTRIES && bytes < BATCH_BYTES && entries.hasNext()) {
                int added = encoding.add(batch, entries.next());
                if (added > 0) {
                    entryCount++;
                    bytes += added;
                }
            }
            return batch;
        }

        /** Ends the stream: the iterator is closed now, or by the batch being read when it returns. */
        private void finish() {
            if (done) {
                return;
            }
            done = true;
            if (!reading) {
                closeIterator();
            }
        }

        private void closeIterator() {
            context.executeBlocking(() -> closeQuietly(entries), false);
        }
    }
}
