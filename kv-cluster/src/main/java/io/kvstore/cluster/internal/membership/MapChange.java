package io.kvstore.cluster.internal.membership;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;

/** One change of the cluster map a node drives, and how it goes. Read from any thread. */
public final class MapChange {
    /** How a change ends. */
    public static final String RUNNING = "running";
    public static final String DONE = "done";
    public static final String FAILED = "failed";
    public static final String CANCELLED = "cancelled";

    private final long id;
    private final ChangeOperation operation;
    private final String node;
    private final boolean resumed;
    private final boolean force;
    private final long startedAtMillis;
    private volatile String status = RUNNING;
    private volatile String step = "started";
    private volatile String reason;
    private volatile long finishedAtMillis;
    private final AtomicInteger streams = new AtomicInteger();
    private final AtomicInteger streamsDone = new AtomicInteger();
    /** Each stream's counts, by source and stream name. */
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    private volatile boolean cancelled;

    MapChange(long id, ChangeOperation operation, String node, boolean resumed, boolean force, long startedAtMillis) {
        this.id = id;
        this.operation = operation;
        this.node = node;
        this.resumed = resumed;
        this.force = force;
        this.startedAtMillis = startedAtMillis;
    }

    public long id() {
        return id;
    }

    public ChangeOperation operation() {
        return operation;
    }

    /** The node joining, leaving or removed. */
    public String node() {
        return node;
    }

    /** Found in progress in the map (its driver restarted or died) rather than started by an operator here. */
    public boolean resumed() {
        return resumed;
    }

    /** A removal an operator forced: its maps are committed without a majority of the metadata group. */
    public boolean force() {
        return force;
    }

    public long startedAtMillis() {
        return startedAtMillis;
    }

    /** {@value #RUNNING}, {@value #DONE}, {@value #FAILED} or {@value #CANCELLED}. */
    public String status() {
        return status;
    }

    /**
     * Where a running change is: {@code started}, {@code streaming}, {@code reads moved}, {@code finishing},
     * {@code cleanup} or {@code rolling back}; once over, its outcome.
     */
    public String step() {
        return step;
    }

    /** Why it failed or was cancelled; null otherwise. */
    public String reason() {
        return reason;
    }

    /** When it ended; 0 while it runs. */
    public long finishedAtMillis() {
        return finishedAtMillis;
    }

    /** Streams the change asked for. */
    public int streams() {
        return streams.get();
    }

    public int streamsDone() {
        return streamsDone.get();
    }

    /** Entries the streams sent so far (an entry sent to two nodes counts twice). */
    public long entriesStreamed() {
        return tallies.values().stream().mapToLong(t -> t.total(StreamProgress::entries)).sum();
    }

    /** Bytes of {@link #entriesStreamed()} (keys, values and 16 bytes each of timestamp and flags). */
    public long bytesStreamed() {
        return tallies.values().stream().mapToLong(t -> t.total(StreamProgress::bytes)).sum();
    }

    /** Keys the sources have read from their stores so far. */
    public long keysScanned() {
        return tallies.values().stream().mapToLong(t -> t.total(StreamProgress::keysScanned)).sum();
    }

    /**
     * Keys the sources have to read, estimated from their tables' entries when their streams started
     * (sources that read nothing count 0); -1 while a source's store keeps no count.
     */
    public long keysToScan() {
        long sum = 0;
        for (Tally tally : tallies.values()) {
            if (tally.keysToScan < 0) {
                return -1;
            }
            sum += tally.keysToScan;
        }
        return sum;
    }

    boolean cancelled() {
        return cancelled;
    }

    boolean pastCancelling() {
        return MapChanges.READS_MOVED.equals(step) || "finishing".equals(step) || "cleanup".equals(step);
    }

    void cancel() {
        cancelled = true;
    }

    void step(String step) {
        this.step = step;
    }

    void addStreams(int count) {
        streams.addAndGet(count);
    }

    /** What {@code source} told of its stream {@code stream}. */
    void streamProgress(String source, String stream, StreamProgress progress) {
        if (progress.state() == StreamProgress.State.RUNNING || progress.state() == StreamProgress.State.DONE) {
            tallies.computeIfAbsent(source + " " + stream, key -> new Tally()).update(progress);
        }
    }

    void streamDone() {
        streamsDone.incrementAndGet();
    }

    void reason(String reason) {
        this.reason = reason;
    }

    void end(String outcome, long nowMillis) {
        finishedAtMillis = nowMillis;
        step = outcome;
        status = outcome;
    }

    @Override
    public String toString() {
        return operation.id() + " of " + node;
    }

    /**
     * One stream's counts over its runs: a source that restarted runs it again from its checkpoint and
     * counts from zero, so the counts of the runs before are kept apart and added.
     */
    private static final class Tally {
        private StreamProgress earlier = new StreamProgress(StreamProgress.State.RUNNING, 0, 0, 0, 0, null);
        private StreamProgress latest = StreamProgress.RUNNING;
        private volatile long keysToScan;
        private boolean estimated;

        synchronized void update(StreamProgress progress) {
            if (progress.keysScanned() < latest.keysScanned() || progress.entries() < latest.entries()) {
                earlier = new StreamProgress(StreamProgress.State.RUNNING, earlier.keysScanned() + latest.keysScanned(), 0,
                        earlier.entries() + latest.entries(), earlier.bytes() + latest.bytes(), null);
            }
            latest = progress;
            if (!estimated && (progress.keysToScan() != 0 || progress.state() == StreamProgress.State.DONE)) {
                keysToScan = progress.keysToScan(); // the first run's estimate: a run resumed later reads less
                estimated = true;
            }
        }

        synchronized long total(ToLongFunction<StreamProgress> count) {
            return count.applyAsLong(earlier) + count.applyAsLong(latest);
        }
    }
}
