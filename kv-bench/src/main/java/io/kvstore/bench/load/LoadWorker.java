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
 *
 * <p>Both modes run one "lane" per connection with at most one request outstanding, so requests never
 * wait in the client's pool. Closed loop: a lane sends its next request when the previous one answers.
 * Open loop (as wrk2 does): each lane follows its own schedule at rate / lanes; a request is sent at its
 * scheduled time, or at once if the lane is behind, and its latency is counted from the scheduled
 * time, so a server stall shows up in full instead of slowing the generator down. During the warm-up
 * a late lane skips the slots it missed instead of catching up: the generator's own JIT warm-up (a few
 * thousand requests/s in its first second) would otherwise leave every lane a second or more behind,
 * and that backlog, drained at one round trip at a time per lane, would be measured as the server's.
 */
final class LoadWorker {

    private final LoadOptions options;
    private final Context context;
    private final HttpClientAgent client;
    private final List<URI> targets;
    private final int connections;
    private final long laneIntervalNanos;
    private final long warmupEndNanos;
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
    private int targetCursor;

    /** {@code warmupEndNanos}: {@link System#nanoTime()} at which the measurement starts (0: none). */
    LoadWorker(Vertx vertx, LoadOptions options, int connections, double rate, AtomicLong preloadCursor, long seed,
            long warmupEndNanos) {
        this.options = options;
        this.warmupEndNanos = warmupEndNanos;
        this.context = vertx.getOrCreateContext();
        this.targets = options.targets;
        this.connections = connections;
        this.laneIntervalNanos = rate > 0 ? (long) (1e9 * connections / rate) : 0;
        this.keys = KeyChooser.of(options.distribution, Math.max(options.keys, 2));
        this.preloadCursor = preloadCursor;
        this.random = new SplittableRandom(seed);
        byte[] bytes = new byte[options.valueSize];
        random.nextBytes(bytes);
        this.value = Buffer.buffer(bytes);
        this.keyDigits = options.keyDigits();
        int perTarget = Math.max(1, connections / targets.size());
        this.client = vertx.createHttpClient(
                new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(perTarget));
    }

    void start() {
        context.runOnContext(v -> {
            long start = System.nanoTime();
            for (int lane = 0; lane < connections; lane++) {
                if (options.openLoop()) {
                    // Lanes start spread over one interval, so the rate is smooth from the first request.
                    scheduleLane(start + laneIntervalNanos * lane / connections);
                } else {
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

    /** Open loop: sends this lane's request due at {@code slot}, at once if it is late, else on time. */
    private void scheduleLane(long slot) {
        if (stopping) {
            checkDrained();
            return;
        }
        long now = System.nanoTime();
        // Still warming up: a late lane starts again from now, so no backlog reaches the measurement.
        long intended = slot < now && now < warmupEndNanos ? now : slot;
        long waitMillis = (intended - now) / 1_000_000;
        if (waitMillis >= 1) {
            context.owner().setTimer(waitMillis, id -> fire(intended));
        } else {
            fire(intended);
        }
    }

    private void fire(long intended) {
        if (stopping) {
            checkDrained();
            return;
        }
        // Lanes wait in whole milliseconds, so a request may leave up to 1 ms before its slot; it is then
        // timed from when it left, never from the later slot (which would hide part of its latency).
        // Timers to the microsecond (epoll has them) would cost a wake-up per request on both sides
        // (docs/BENCHMARKS.md).
        send(nextOp(), keys.next(random), Math.min(intended, System.nanoTime()), intended);
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
            send(OperationMix.Op.PUT, index, System.nanoTime(), 0);
        } else {
            send(nextOp(), keys.next(random), System.nanoTime(), 0);
        }
    }

    private OperationMix.Op nextOp() {
        return options.ops.next(random);
    }

    /** {@code timedFrom}: where its latency starts; {@code slot}: its place in an open-loop lane's schedule. */
    private void send(OperationMix.Op op, long keyIndex, long timedFrom, long slot) {
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
                    latencyMicros.recordValue(Math.max(0, (System.nanoTime() - timedFrom) / 1000));
                    completed.incrementAndGet();
                    if (ar.succeeded()) {
                        int status = ar.result();
                        statusCounts.incrementAndGet(status >= 0 && status < 600 ? status : 0);
                    } else {
                        errors.computeIfAbsent(describe(ar.cause()), k -> new LongAdder()).increment();
                    }
                    if (options.openLoop()) {
                        scheduleLane(slot + laneIntervalNanos);
                    } else {
                        sendNext();
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
