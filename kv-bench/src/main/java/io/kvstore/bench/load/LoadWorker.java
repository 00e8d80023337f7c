package io.kvstore.bench.load;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * One event loop's share of the load: its own HTTP client (keep-alive pool per target), its own
 * random state and latency recorder. Every method but the constructor and {@link #stop()} runs on the
 * worker's event loop, so the counters below have a single writer.
 */
final class LoadWorker {
    /** Open loop: requests due but not yet answered beyond this are dropped and counted, not queued. */
    private static final int MAX_BACKLOG = 100_000;

    private final LoadOptions options;
    private final Context context;
    private final HttpClientAgent client;
    private final List<URI> targets;
    private final int connections;
    private final double requestsPerNano;
    private final KeyChooser keys;
    private final AtomicLong preloadCursor;
    private final SplittableRandom random;
    private final Buffer value;
    private final int keyDigits;

    final Recorder latencyMicros = new Recorder(3_600_000_000L, 3);
    final AtomicLongArray statusCounts = new AtomicLongArray(600);
    final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
    final AtomicLong completed = new AtomicLong();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    private volatile boolean stopping;
    private int outstanding;
    private long issued;
    private long startNanos;
    private int targetCursor;

    LoadWorker(Vertx vertx, LoadOptions options, int connections, double rate, AtomicLong preloadCursor, long seed) {
        this.options = options;
        this.context = vertx.getOrCreateContext();
        this.targets = options.targets;
        this.connections = connections;
        this.requestsPerNano = rate / 1e9;
        this.keys = KeyChooser.of(options.distribution, Math.max(options.keys, 2));
        this.preloadCursor = preloadCursor;
        this.random = new SplittableRandom(seed);
        byte[] bytes = new byte[options.valueSize];
        random.nextBytes(bytes);
        this.value = Buffer.buffer(bytes);
        this.keyDigits = Long.toString(Math.max(options.keys, options.preload) - 1).length();
        int perTarget = Math.max(1, connections / targets.size());
        this.client = vertx.createHttpClient(
                new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(perTarget));
    }

    void start() {
        context.runOnContext(v -> {
            startNanos = System.nanoTime();
            if (options.openLoop()) {
                context.owner().setPeriodic(1, id -> {
                    if (stopping) {
                        context.owner().cancelTimer(id);
                        checkDrained();
                    } else {
                        sendDue();
                    }
                });
            } else {
                for (int i = 0; i < connections; i++) {
                    sendNext();
                }
            }
        });
    }

    /** Stops issuing; the returned future completes once every request in flight has answered. */
    CompletableFuture<Void> stop() {
        stopping = true;
        context.runOnContext(v -> checkDrained());
        return drained;
    }

    CompletableFuture<Void> drained() {
        return drained;
    }

    Future<Void> close() {
        return client.close();
    }

    private void sendDue() {
        long now = System.nanoTime();
        long due = (long) ((now - startNanos) * requestsPerNano);
        while (issued < due) {
            long intended = startNanos + (long) (issued / requestsPerNano);
            issued++;
            if (outstanding >= MAX_BACKLOG) {
                errors.computeIfAbsent("generator backlog full (request dropped)", k -> new LongAdder()).increment();
                continue;
            }
            send(nextOp(), keys.next(random), intended);
        }
    }

    /** Closed loop and preload: one request per free connection, the next as soon as it answers. */
    private void sendNext() {
        if (stopping) {
            checkDrained();
            return;
        }
        if (preloadCursor != null) {
            long index = preloadCursor.getAndIncrement();
            if (index >= options.preload) {
                stopping = true;
                checkDrained();
                return;
            }
            send(OperationMix.Op.PUT, index, System.nanoTime());
        } else {
            send(nextOp(), keys.next(random), System.nanoTime());
        }
    }

    private OperationMix.Op nextOp() {
        return options.ops.next(random);
    }

    private void send(OperationMix.Op op, long keyIndex, long intendedNanos) {
        URI target = targets.get(targetCursor);
        targetCursor = (targetCursor + 1) % targets.size();
        RequestOptions request = new RequestOptions()
                .setMethod(op == OperationMix.Op.PUT ? HttpMethod.PUT
                        : op == OperationMix.Op.GET ? HttpMethod.GET : HttpMethod.DELETE)
                .setHost(target.getHost())
                .setPort(target.getPort())
                .setURI("/v0/entity?id=" + keyName(keyIndex) + options.replicationQuery())
                .setIdleTimeout(options.timeoutMillis);
        outstanding++;
        client.request(request)
                .compose(req -> op == OperationMix.Op.PUT ? req.send(value) : req.send())
                .compose(resp -> resp.body().map(body -> resp.statusCode()))
                .onComplete(ar -> {
                    outstanding--;
                    latencyMicros.recordValue(Math.max(0, (System.nanoTime() - intendedNanos) / 1000));
                    completed.incrementAndGet();
                    if (ar.succeeded()) {
                        int status = ar.result();
                        statusCounts.incrementAndGet(status >= 0 && status < 600 ? status : 0);
                    } else {
                        errors.computeIfAbsent(describe(ar.cause()), k -> new LongAdder()).increment();
                    }
                    if (!options.openLoop()) {
                        sendNext();
                    } else if (stopping) {
                        checkDrained();
                    }
                });
    }

    private void checkDrained() {
        if (stopping && outstanding == 0) {
            drained.complete(null);
        }
    }

    /** Fixed-width decimal names ({@code key0000042}) so that key order is numeric order. */
    private String keyName(long index) {
        String digits = Long.toString(index);
        StringBuilder sb = new StringBuilder(3 + keyDigits).append("key");
        for (int i = digits.length(); i < keyDigits; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    private static String describe(Throwable t) {
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null ? "" : ": " + message.split("\n", 2)[0]);
    }
}
