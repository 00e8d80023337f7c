package io.kvstore.server;

import io.kvstore.core.Entry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;

/**
 * A peer's versions of a key range, streamed from its internal range route ({@link RangeFrames}).
 * Back-pressure: the response is paused while {@value #HIGH_WATER_BYTES} bytes of decoded entries wait
 * to be merged, and resumed once half of them are taken, so a peer streams only as fast as the client
 * of the merged range reads. The stream failing, ending without its end frame, or a status other than
 * 200 fails the source.
 */
final class RemoteRangeSource implements RangeSource {
    static final int HIGH_WATER_BYTES = 256 << 10;

    private final HttpClient client;
    private final String node;
    private final String host;
    private final int port;
    private final String uri;
    private final long connectTimeoutMillis;
    private final RangeFrames.Decoder decoder;
    private Listener listener;
    private HttpClientRequest request;
    private HttpClientResponse response;
    private boolean paused;
    private boolean done;

    RemoteRangeSource(HttpClient client, String node, byte[] from, byte[] to, long connectTimeoutMillis,
                      int maxKeyBytes, int maxValueBytes) {
        URI parsed = URI.create(node);
        this.client = client;
        this.node = node;
        this.host = parsed.getHost();
        this.port = parsed.getPort();
        this.uri = InternalCodec.rangeUri(from, to);
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.decoder = new RangeFrames.Decoder(node, maxKeyBytes, maxValueBytes);
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public void start(Listener listener) {
        this.listener = listener;
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
            paused = false;
            response.resume();
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
            paused = false;
            response.resume();
        }
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
        if (request != null && !decoder.ended()) {
            // Cuts the connection: the peer stops reading its store for a stream nobody will take.
            request.reset();
        }
    }
}
