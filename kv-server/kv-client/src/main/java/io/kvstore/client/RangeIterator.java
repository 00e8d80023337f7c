package io.kvstore.client;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A range streamed from a node, entry by entry, in key order. Back-pressure: once the entries received
 * and not yet consumed hold {@value #HIGH_WATER_BYTES} bytes, the client stops reading the connection
 * (the node then stops reading its store) until the consumer has taken them down to
 * {@value #LOW_WATER_BYTES}, so memory stays bounded however large the range and however slow the
 * consumer. {@link #close()} (try-with-resources) releases the connection, also before the end.
 *
 * <pre>{@code
 * try (RangeIterator entries = client.range(start, end)) {
 *     while (entries.hasNext()) {
 *         KeyValue entry = entries.next();
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #hasNext()} waits for the next entry on the calling thread (never call it on an event loop)
 * and throws a {@link KvClientException} if the node answered with an error status, the connection
 * failed or no bytes came within the client's timeout. One consumer thread at a time.
 */
public final class RangeIterator implements Iterator<KeyValue>, AutoCloseable {
    /** Bytes of received, unconsumed entries at which reading pauses. */
    public static final int HIGH_WATER_BYTES = 1 << 20;
    /** Bytes of received, unconsumed entries at which reading resumes. */
    public static final int LOW_WATER_BYTES = 256 << 10;
    private static final Object END = new Object();

    private final Context context;
    private final String node;
    private final long timeoutMillis;
    private final LinkedBlockingQueue<Object> received = new LinkedBlockingQueue<>();
    private final AtomicLong receivedBytes = new AtomicLong();
    private volatile NetSocket socket;
    private volatile boolean paused;
    private volatile boolean closed;
    private Object next;

    private RangeIterator(Context context, String node, long timeoutMillis) {
        this.context = context;
        this.node = node;
        this.timeoutMillis = timeoutMillis;
    }

    /** {@code headers}: further header lines, each ending in CRLF (or empty). */
    static RangeIterator open(NetClient net, Context context, SocketAddress address, String node, String uri,
            String headers, long timeoutMillis) {
        RangeIterator range = new RangeIterator(context, node, timeoutMillis);
        // Keep-alive, though the connection serves this range only: this side closes it once the last
        // chunk is in, so the node never closes it with the end of the stream still in its buffers.
        String request = "GET " + uri + " HTTP/1.1\r\nHost: " + address.host() + ":" + address.port() + "\r\n" + headers + "\r\n";
        context.runOnContext(v -> net.connect(address).onComplete(connected -> {
            if (connected.failed()) {
                range.received.add(new KvClientException("range from " + node + ": cannot connect: " + connected.cause(), 0,
                        node, connected.cause()));
            } else {
                range.start(connected.result(), request);
            }
        }));
        return range;
    }

    /** Event loop. */
    private void start(NetSocket connection, String request) {
        socket = connection;
        if (closed) {
            connection.close();
            return;
        }
        ChunkedEntryDecoder decoder = new ChunkedEntryDecoder(new ChunkedEntryDecoder.Listener() {
            @Override
            public void entry(byte[] key, byte[] value) {
                received.add(new KeyValue(key, value));
                if (receivedBytes.addAndGet(key.length + value.length) >= HIGH_WATER_BYTES && !paused) {
                    paused = true;
                    connection.pause();
                }
            }

            @Override
            public void end() {
                received.add(END);
                connection.close();
            }

            @Override
            public void failed(KvClientException error) {
                received.add(error);
                connection.close();
            }
        }, node);
        connection.handler(decoder::feed);
        connection.exceptionHandler(error -> received.add(new KvClientException("range from " + node + ": " + error, 0,
                node, error)));
        // The end, not the close: it comes after the data still queued while reading was paused.
        connection.endHandler(v -> decoder.closed());
        connection.write(Buffer.buffer(request));
    }

    /**
     * Whether another entry follows; waits for it.
     *
     * @throws KvClientException if the node refused the range, the connection failed or timed out
     */
    @Override
    public boolean hasNext() {
        if (next == null) {
            if (closed) {
                return false;
            }
            try {
                next = received.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KvClientException("interrupted while waiting for a range from " + node, 0, node, e);
            }
            if (next == null) {
                close();
                throw new KvClientException("range from " + node + ": no entry within " + timeoutMillis + " ms", 0, node, null);
            }
            if (next instanceof KeyValue) {
                KeyValue entry = (KeyValue) next;
                long left = receivedBytes.addAndGet(-(entry.key().length + entry.value().length));
                if (paused && left <= LOW_WATER_BYTES) {
                    paused = false;
                    NetSocket connection = socket;
                    context.runOnContext(v -> connection.resume());
                }
            }
        }
        if (next instanceof KvClientException) {
            KvClientException error = (KvClientException) next;
            close();
            throw error;
        }
        return next != END;
    }

    @Override
    public KeyValue next() {
        if (!hasNext()) {
            throw new NoSuchElementException("the range from " + node + " has ended");
        }
        KeyValue entry = (KeyValue) next;
        next = null;
        return entry;
    }

    /** Bytes of entries received and not yet consumed. */
    long bufferedBytes() {
        return receivedBytes.get();
    }

    /** Whether reading the connection is paused until the consumer catches up. */
    boolean paused() {
        return paused;
    }

    /** Closes the connection, whether or not the range was read to its end. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        next = END;
        context.runOnContext(v -> {
            NetSocket connection = socket;
            if (connection != null) {
                connection.close();
            }
        });
        received.clear();
    }
}
