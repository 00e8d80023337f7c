package io.kvstore.server.http;

import io.kvstore.core.background.ForegroundSignal;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * The foreground as the background budget's controller sees it: how many point requests (reads and
 * writes of one key, a client's or a peer's) completed since it last looked, their mean latency, and
 * how many requests are in flight now. Long requests (range streams, admin and membership routes) are
 * left out of the latency, where one would read as a slowdown. Recording costs two adds and no
 * allocation.
 */
public final class RequestWindow implements ForegroundSignal {
    private final LongAdder requests = new LongAdder();
    private final LongAdder nanos = new LongAdder();
    private final IntSupplier inFlight;
    /** Totals at the last sample; read and written by the sampling thread only. */
    private long sampledRequests;
    private long sampledNanos;

    /** A window that reads the requests in flight from {@code inFlight}. */
    public RequestWindow(IntSupplier inFlight) {
        this.inFlight = inFlight;
    }

    /** A point request took {@code latencyNanos} from its arrival to the end of its answer. */
    public void record(long latencyNanos) {
        requests.increment();
        nanos.add(latencyNanos);
    }

    @Override
    public Sample sample() {
        long totalRequests = requests.sum();
        long totalNanos = nanos.sum();
        long count = totalRequests - sampledRequests;
        long spent = totalNanos - sampledNanos;
        sampledRequests = totalRequests;
        sampledNanos = totalNanos;
        return new Sample(count, count <= 0 ? 0 : spent / count, Math.max(0, inFlight.getAsInt()));
    }
}
