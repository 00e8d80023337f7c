package io.kvstore.bench.load;

import io.kvstore.client.CallOptions;
import io.kvstore.client.KvClient;
import io.kvstore.client.KvClientException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One event loop's share of the load: its own {@link KvClient} (keep-alive pool per node, requests
 * routed to a replica of their key or spread over the targets), its own random state and latency
 * recorder. Every method but the constructor and {@link #stop()} runs on the
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
    /** Size of the random bytes PUT values are cut from: far beyond what LZ4 or zstd look back over in a block. */
    private static final int VALUE_POOL_BYTES = 4 << 20;

    private final LoadOptions options;
    private final Context context;
    private final KvClient client;
    /** Range requests' client ({@code null} without ranges): the Java client's ranges block their caller. */
    private final HttpClientAgent ranges;
    /** Which of the targets the next range goes to. */
    private int nextRangeTarget;
    private final CallOptions callOptions;
    private final int connections;
    private final long laneIntervalNanos;
    private final long warmupEndNanos;
    private final KeyChooser keys;
    private final AtomicLong preloadCursor;
    private final SplittableRandom random;
    /** Random bytes each PUT's value is a slice of (see {@link #nextValue}). */
    private final Buffer values;
    /** Where the next value starts in {@link #values}. */
    private int valueCursor;
    private final int keyDigits;

    final Recorder latencyMicros = new Recorder(3_600_000_000L, 3);
    final AtomicLongArray statusCounts = new AtomicLongArray(600);
    final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
    final AtomicLong completed = new AtomicLong();
    /**
     * Measured-time latencies of the 2xx answers, and of the 503s counted from when each request left (how
     * soon an overloaded node refuses); written on the event loop, read once every request has drained.
     */
    final Histogram servedMicros = new Histogram(3_600_000_000L, 3);
    final Histogram refusedMicros = new Histogram(3_600_000_000L, 3);
    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    private volatile boolean stopping;
    private int outstanding;

    /** {@code warmupEndNanos}: {@link System#nanoTime()} at which the measurement starts (0: none). */
    LoadWorker(Vertx vertx, LoadOptions options, int connections, double rate, AtomicLong preloadCursor, long seed,
            long warmupEndNanos) {
        this.options = options;
        this.warmupEndNanos = warmupEndNanos;
        this.context = vertx.getOrCreateContext();
        this.connections = connections;
        this.laneIntervalNanos = rate > 0 ? (long) (1e9 * connections / rate) : 0;
        this.keys = KeyChooser.of(options.distribution, Math.max(options.keys, 2));
        this.preloadCursor = preloadCursor;
        this.random = new SplittableRandom(seed);
        byte[] bytes = new byte[Math.max(VALUE_POOL_BYTES, options.valueSize)];
        random.nextBytes(bytes);
        this.values = Buffer.buffer(bytes);
        this.keyDigits = options.keyDigits();
        this.callOptions = options.callOptions();
        // As many connections per node as lanes: routed by key, a node may at times get every lane's
        // request; connections are opened only as lanes need them.
        this.client = KvClient.builder().vertx(vertx).seeds(options.targetsSpec.split(","))
                .routing(options.routing).connectionsPerNode(connections)
                .trustedCa(options.tlsCa).tlsEngine(options.tlsEngine).timeout(Duration.ofMillis(options.timeoutMillis)).build();
        this.ranges = options.ops.hasRanges()
                ? vertx.createHttpClient(options.httpClientOptions(), new PoolOptions().setHttp1MaxSize(connections)) : null;
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

    void close() {
        client.close();
        if (ranges != null) {
            ranges.close();
        }
    }

    /** Has the client read the cluster map again, as it does on a request once its map is old. */
    void refreshClusterMap() {
        client.refresh();
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

    /**
     * The next {@code --value-size} random bytes of {@link #values}: each PUT carries different bytes,
     * so the server's tables compress them as little as random data (one value sent again and again
     * would let every block compress many times over, and with it the bytes flushes and compactions
     * write). Slices follow one another without overlapping, so no two values of one pass over the
     * pool are equal (random offsets would repeat one after about a thousand PUTs); each pass starts
     * at a random shift, so the next pass cuts different values from the same bytes.
     */
    private Buffer nextValue() {
        int size = options.valueSize;
        if (valueCursor + size > values.length()) {
            valueCursor = random.nextInt(Math.max(1, Math.min(size, values.length() - size + 1)));
        }
        int offset = valueCursor;
        valueCursor += size;
        return values.slice(offset, offset + size);
    }

    private OperationMix.Op nextOp() {
        return options.ops.next(random);
    }

    /** {@code timedFrom}: where its latency starts; {@code slot}: its place in an open-loop lane's schedule. */
    private void send(OperationMix.Op op, long keyIndex, long timedFrom, long slot) {
        byte[] key = keyName(keyIndex);
        outstanding++;
        long sent = System.nanoTime();
        if (op == OperationMix.Op.GET) {
            client.get(key, callOptions).whenComplete((found, error) ->
                    answered(error == null && found.isEmpty() ? 404 : 200, error, timedFrom, slot, sent));
        } else if (op == OperationMix.Op.RANGE) {
            range(keyIndex, timedFrom, slot, sent);
        } else if (op == OperationMix.Op.PUT) {
            client.put(key, nextValue(), callOptions).whenComplete((done, error) -> answered(201, error, timedFrom, slot, sent));
        } else {
            client.delete(key, callOptions).whenComplete((done, error) -> answered(202, error, timedFrom, slot, sent));
        }
    }

    /**
     * A range of {@code --range-keys} keys from {@code keyIndex} ({@code GET /v0/entities}, to the last key where the
     * range would pass it), from the targets in turn, timed until its last byte arrived.
     */
    private void range(long keyIndex, long timedFrom, long slot, long sent) {
        URI target = options.targets.get(nextRangeTarget);
        nextRangeTarget = (nextRangeTarget + 1) % options.targets.size();
        StringBuilder uri = new StringBuilder("/v0/entities?start=").append(new String(keyName(keyIndex), StandardCharsets.US_ASCII));
        long end = keyIndex + options.rangeKeys;
        if (end < options.keys) { // fixed-width names exist up to --keys
            uri.append("&end=").append(new String(keyName(end), StandardCharsets.US_ASCII));
        }
        RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setHost(target.getHost())
                .setPort(target.getPort()).setURI(uri.toString()).setIdleTimeout(options.timeoutMillis);
        ranges.request(request).compose(r -> r.send()).compose(response -> response.body().map(body -> response.statusCode()))
                .onComplete(done -> answered(done.succeeded() ? done.result() : 0, done.cause(), timedFrom, slot, sent));
    }

    /** On the event loop: {@code status} if {@code error} is null, else the error's status or description. */
    private void answered(int status, Throwable error, long timedFrom, long slot, long sent) {
        outstanding--;
        long now = System.nanoTime();
        latencyMicros.recordValue(Math.max(0, (now - timedFrom) / 1000));
        completed.incrementAndGet();
        int answer = error == null ? status : error instanceof KvClientException ? ((KvClientException) error).status() : 0;
        boolean measured = warmupEndNanos == 0 || sent - warmupEndNanos >= 0;
        if (measured && answer >= 200 && answer < 300) {
            servedMicros.recordValue(Math.min(servedMicros.getHighestTrackableValue(), Math.max(0, (now - timedFrom) / 1000)));
        } else if (measured && answer == 503) {
            refusedMicros.recordValue(Math.min(refusedMicros.getHighestTrackableValue(), Math.max(0, (now - sent) / 1000)));
        }
        if (answer > 0) {
            statusCounts.incrementAndGet(answer < 600 ? answer : 0);
        } else {
            Throwable cause = error.getCause() != null ? error.getCause() : error;
            errors.computeIfAbsent(describe(cause), k -> new LongAdder()).increment();
        }
        if (options.openLoop()) {
            scheduleLane(slot + laneIntervalNanos);
        } else {
            sendNext();
        }
    }

    private void checkDrained() {
        if (stopping && outstanding == 0) {
            drained.complete(null);
        }
    }

    /** Fixed-width decimal names ({@code key0000042}) so that key order is numeric order. */
    private byte[] keyName(long index) {
        byte[] name = new byte[3 + keyDigits];
        name[0] = 'k';
        name[1] = 'e';
        name[2] = 'y';
        long rest = index;
        for (int i = name.length - 1; i >= 3; i--) {
            name[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return name;
    }

    private static String describe(Throwable t) {
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null ? "" : ": " + message.split("\n", 2)[0]);
    }
}
