package io.kvstore.server.http;

import io.kvstore.cluster.Quorum;
import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import io.kvstore.server.internode.RangeSource;
import io.kvstore.server.internode.RemoteRangeSource;
import io.kvstore.server.wire.Responses;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v0/entities?start=S[&end=E]&scope=cluster[&ack=A&from=F]}: the range over the whole
 * cluster. Every node may hold keys of any range (keys are placed by hash), so this node merges the
 * streams of all of them: its own store and each peer's internal range route, which carries
 * timestamps and tombstones. For each key the newest version wins ({@link Entry#newerOf}); a key whose
 * newest version is a tombstone is left out; each key is written once, in order, in the public format.
 *
 * <p>{@code ack} (default 1) and {@code from} (default the cluster size) bound the failures a range
 * survives: a key's replicas are {@code from} nodes, so while no more than {@code from - ack} nodes
 * failed, every key still has {@code ack} of its replicas answering. A node fails when it cannot be
 * reached, answers anything but 200, sends a malformed or unfinished stream, or sends nothing for the
 * timeout while the merge waits for it. One more failure than that, and the stream fails:
 * with 504 if nothing was sent yet, else by closing the connection without the last chunk, so the
 * client sees an incomplete body and never a short range that looks complete.
 *
 * <p>Back-pressure and memory: the merge writes only while the client's socket has room and each
 * source holds a bounded buffer ({@link LocalRangeSource}, {@link RemoteRangeSource}), so memory does
 * not depend on the size of the range.
 */
public final class ClusterRange {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRange.class);
    /** Keys merged before the merge yields its event loop to other connections. */
    private static final int KEYS_PER_TURN = 1024;

    private final Supplier<List<String>> nodes;
    private final String self;
    private final RangeHandler ranges;
    private final HttpClient client;
    private final long timeoutMillis;
    private final int maxKeyBytes;
    private final int maxValueBytes;

    /**
     * @param nodes gives the nodes that own ranges now, read once per request
     * @param timeoutMillis bounds both the connection to a peer and its silence while the merge waits for
     *     its next frame ({@link RemoteRangeSource})
     */
    public ClusterRange(Supplier<List<String>> nodes, String self, RangeHandler ranges, HttpClient client, long timeoutMillis,
                 int maxKeyBytes, int maxValueBytes) {
        this.nodes = nodes;
        this.self = self;
        this.ranges = ranges;
        this.client = client;
        this.timeoutMillis = timeoutMillis;
        this.maxKeyBytes = maxKeyBytes;
        this.maxValueBytes = maxValueBytes;
    }

    /** The nodes a range read now goes to: the owners of the current cluster map. */
    List<String> nodes() {
        return nodes.get();
    }

    /** Reads {@code [from, to)} from {@code nodes} (as {@link #nodes()} gave them for this request) and merges. */
    void handle(HttpServerRequest request, List<String> nodes, byte[] from, byte[] to, Quorum quorum) {
        Context context = Vertx.currentContext();
        List<RangeSource> sources = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            sources.add(node.equals(self) ? new LocalRangeSource(node, ranges, context, from, to)
                    : new RemoteRangeSource(client, context.owner(), node, from, to, timeoutMillis, timeoutMillis,
                            maxKeyBytes, maxValueBytes));
        }
        new Merge(context, request, sources, quorum).start();
    }

    /** One merged range; its state changes on the request's event loop only. */
    private static final class Merge implements RangeSource.Listener {
        private final Context context;
        private final HttpServerRequest request;
        private final HttpServerResponse response;
        private final List<RangeSource> live;
        private final Quorum quorum;
        private final List<String> failures = new ArrayList<>();
        /** Failed sources still in {@link #live}: taken out between two keys, never while a key is gathered. */
        private final List<RangeSource> failed = new ArrayList<>();
        private boolean started;
        private boolean done;
        private boolean pumping;
        private boolean again;

        Merge(Context context, HttpServerRequest request, List<RangeSource> sources, Quorum quorum) {
            this.context = context;
            this.request = request;
            this.response = request.response();
            this.live = new ArrayList<>(sources);
            this.quorum = quorum;
        }

        void start() {
            // Also called when the connection closes before the response ends.
            response.exceptionHandler(error -> stop());
            response.drainHandler(room -> pump());
            for (RangeSource source : new ArrayList<>(live)) {
                source.start(this);
            }
        }

        @Override
        public void ready(RangeSource source) {
            pump();
        }

        @Override
        public void failed(RangeSource source, Throwable cause) {
            if (done || failed.contains(source) || !live.contains(source)) {
                return;
            }
            failed.add(source);
            failures.add(source.node() + ": " + cause.getMessage());
            LOG.warn("cluster range {}: {} failed", request.uri(), source.node(), cause);
            if (quorum.from() - failures.size() < quorum.ack()) {
                abort();
            } else {
                pump();
            }
        }

        /** Merges while every live source has an entry (or ended) and the socket has room. */
        private void pump() {
            if (pumping) {
                again = true;
                return;
            }
            pumping = true;
            try {
                do {
                    again = false;
                    merge();
                } while (again && !done);
            } finally {
                pumping = false;
            }
        }

        private void merge() {
            for (int keys = 0; !done; keys++) {
                if (response.writeQueueFull()) {
                    return; // the drain handler pumps again
                }
                if (keys == KEYS_PER_TURN) {
                    context.runOnContext(next -> pump());
                    return;
                }
                if (!failed.isEmpty()) {
                    live.removeAll(failed);
                    failed.clear();
                }
                boolean waiting = false;
                byte[] smallest = null;
                for (int i = 0; i < live.size(); i++) {
                    RangeSource source = live.get(i);
                    Entry head = source.peek();
                    if (head == null) {
                        if (!source.ended()) {
                            waiting = true;
                            source.demand();
                        }
                    } else if (smallest == null || Bytes.compare(head.key(), smallest) < 0) {
                        smallest = head.key();
                    }
                    if (done) {
                        return; // a demand failed its source and that aborted the range
                    }
                }
                if (waiting) {
                    return; // a source's ready() pumps again
                }
                if (smallest == null) {
                    finish();
                    return;
                }
                Entry newest = null;
                for (int i = 0; i < live.size(); i++) {
                    RangeSource source = live.get(i);
                    Entry head = source.peek();
                    if (head != null && Bytes.compare(head.key(), smallest) == 0) {
                        newest = Entry.newerOf(newest, source.poll());
                    }
                }
                // A version that expired since its node read it is left out like the tombstone it now is.
                if (!newest.isTombstone() && !newest.isExpiredAt(System.currentTimeMillis())) {
                    begin();
                    byte[] key = newest.key();
                    byte[] value = newest.value();
                    response.write(Buffer.buffer(key.length + 1 + value.length)
                            .appendBytes(key).appendByte((byte) '\n').appendBytes(value));
                }
            }
        }

        private void begin() {
            if (!started) {
                started = true;
                response.setChunked(true).setStatusCode(200).putHeader("Content-Type", "application/octet-stream");
            }
        }

        private void finish() {
            done = true;
            begin();
            response.end();
        }

        /** Too many sources failed: no key may go out with fewer than ack answers behind it. */
        private void abort() {
            stop();
            String reason = "range needs ack=" + quorum.ack() + " of from=" + quorum.from() + " replicas per key; failed: "
                    + String.join("; ", failures);
            if (!started) {
                Responses.send(request, 504, reason);
            } else {
                // The headers are gone: only an incomplete chunked body tells the client.
                LOG.warn("cluster range {} cut short: {}", request.uri(), reason);
                request.connection().close();
            }
        }

        /** Closes every source; the range is over, finished or not. */
        private void stop() {
            if (done) {
                return;
            }
            done = true;
            for (RangeSource source : live) {
                source.close();
            }
        }
    }
}
