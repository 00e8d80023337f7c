package io.kvstore.server.internode;

import io.kvstore.cluster.membership.NodeUrl;
import io.kvstore.core.Entry;
import io.kvstore.server.wire.InternalCodec;
import io.kvstore.server.wire.RangeFrames;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A peer's versions of a key range, streamed from its internal range route ({@link RangeFrames}).
 * Back-pressure: the response is paused while {@value #HIGH_WATER_BYTES} bytes of decoded entries wait
 * to be merged, and resumed once half of them are taken, so a peer streams only as fast as the client
 * of the merged range reads. The stream failing, ending without its end frame, a status other than
 * 200, or the peer sending nothing for the frame timeout while the source waits for it fails the source:
 * a peer that stopped (a paused process, a partition) cannot stall the merge for ever. Time while the
 * response is paused is the merge's, not the peer's, and does not count.
 */
public final class RemoteRangeSource implements RangeSource {
    static final int HIGH_WATER_BYTES = 256 << 10;

    private final HttpClient client;
    private final Vertx vertx;
    private final String node;
    private final String host;
    private final int port;
    private final String uri;
    private final long connectTimeoutMillis;
    private final long frameTimeoutMillis;
    private final RangeFrames.Decoder decoder;
    private Listener listener;
    private HttpClientRequest request;
    private HttpClientResponse response;
    private boolean paused;
    private boolean done;
    /** When the peer last sent bytes, or the source last asked it for more (System.nanoTime). */
    private long lastHeard;
    private long timer = -1;

    /**
     * {@code frameTimeoutMillis}: how long the peer may send nothing while this source waits for it (from the
     * request, or from the bytes it last sent); {@code vertx} sets that timer, on the caller's event loop.
     */
    public RemoteRangeSource(HttpClient client, Vertx vertx, String node, byte[] from, byte[] to, long connectTimeoutMillis,
                      long frameTimeoutMillis, int maxKeyBytes, int maxValueBytes) {
        NodeUrl parsed = NodeUrl.parse(node);
        this.client = client;
        this.vertx = vertx;
        this.node = node;
        this.host = parsed.host();
        this.port = parsed.port();
        this.uri = InternalCodec.rangeUri(from, to);
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.frameTimeoutMillis = frameTimeoutMillis;
        this.decoder = new RangeFrames.Decoder(node, maxKeyBytes, maxValueBytes);
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public void start(Listener listener) {
        this.listener = listener;
        lastHeard = System.nanoTime();
        watch(frameTimeoutMillis);
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setHost(host).setPort(port).setURI(uri)
                .setConnectTimeout(connectTimeoutMillis);
        client.request(options).compose(sent -> {
            request = sent;
            if (done) {
                sent.reset();
            }
            return sent.send();
        }).onComplete(answer -> {
            if (done) {
                if (answer.succeeded()) {
                    answer.result().request().reset();
                }
                return;
            }
            if (answer.failed()) {
                fail(answer.cause());
                return;
            }
            HttpClientResponse r = answer.result();
            if (r.statusCode() != 200) {
                r.body().onComplete(body -> fail(new IllegalStateException("range from " + node + " answered "
                        + r.statusCode() + (body.succeeded() ? ": " + body.result().toString().trim() : ""))));
                return;
            }
            response = r;
            r.exceptionHandler(this::fail);
            r.handler(this::received);
            r.endHandler(end -> {
                if (!done && !decoder.ended()) {
                    fail(new IllegalStateException("range from " + node + " ended without its end frame"));
                } else if (!done) {
                    listener.ready(this);
                }
            });
        });
    }

    private void received(Buffer chunk) {
        if (done) {
            return;
        }
        lastHeard = System.nanoTime();
        try {
            decoder.feed(chunk);
        } catch (IllegalStateException e) {
            fail(e);
            return;
        }
        if (!paused && decoder.queuedBytes() >= HIGH_WATER_BYTES) {
            paused = true;
            response.pause();
        }
        if (decoder.peek() != null || decoder.ended()) {
            listener.ready(this);
        }
    }

    @Override
    public Entry peek() {
        return decoder.peek();
    }

    @Override
    public Entry poll() {
        Entry entry = decoder.poll();
        if (paused && decoder.queuedBytes() < HIGH_WATER_BYTES / 2) {
            resume();
        }
        return entry;
    }

    @Override
    public boolean ended() {
        return decoder.ended() && decoder.peek() == null;
    }

    @Override
    public void demand() {
        if (paused && !done) {
            resume();
        }
    }

    private void resume() {
        paused = false;
        lastHeard = System.nanoTime(); // the peer's time starts now
        response.resume();
    }

    /** Checks in {@code delayMillis} whether the peer has gone silent. */
    private void watch(long delayMillis) {
        timer = vertx.setTimer(Math.max(1, delayMillis), id -> {
            timer = -1;
            if (done || decoder.ended()) {
                return;
            }
            if (paused) {
                watch(frameTimeoutMillis); // waiting for the merge, not for the peer
                return;
            }
            long silentMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastHeard);
            if (silentMillis >= frameTimeoutMillis) {
                fail(new TimeoutException("range from " + node + ": nothing received for " + silentMillis
                        + " ms (--replica-timeout-ms " + frameTimeoutMillis + ")"));
            } else {
                watch(frameTimeoutMillis - silentMillis);
            }
        });
    }

    private void fail(Throwable cause) {
        if (done) {
            return;
        }
        close();
        listener.failed(this, cause);
    }

    @Override
    public void close() {
        if (done) {
            return;
        }
        done = true;
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        if (request != null && !decoder.ended()) {
            // Cuts the connection: the peer stops reading its store for a stream nobody will take.
            request.reset();
        }
    }
}
