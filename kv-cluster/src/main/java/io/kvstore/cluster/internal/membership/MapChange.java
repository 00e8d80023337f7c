package io.kvstore.cluster.internal.membership;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
    private final AtomicLong entriesStreamed = new AtomicLong();
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

    /** Entries the finished streams sent. */
    public long entriesStreamed() {
        return entriesStreamed.get();
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

    void streamDone(long entries) {
        entriesStreamed.addAndGet(entries);
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
}
