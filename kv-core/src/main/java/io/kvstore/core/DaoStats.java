package io.kvstore.core;

import java.util.concurrent.atomic.LongAdder;

/**
 * The running counters of an engine, which it increments as work happens and reports through
 * {@link Dao#properties()}. Every counter starts at zero when the store opens and only grows, so a
 * monitoring system can take rates of them. Thread-safe; an increment costs one uncontended add.
 */
public final class DaoStats {
    private final LongAdder walSyncs = new LongAdder();
    private final LongAdder writeStalls = new LongAdder();
    private final LongAdder writeStallNanos = new LongAdder();
    private final LongAdder bloomNegatives = new LongAdder();
    private final LongAdder flushes = new LongAdder();
    private final LongAdder flushedBytes = new LongAdder();
    private final LongAdder compactions = new LongAdder();
    private final LongAdder compactedBytes = new LongAdder();
    private final LongAdder backgroundErrors = new LongAdder();

    /** The write-ahead log was forced to the device once. */
    public void walSynced() {
        walSyncs.increment();
    }

    /** A writer waited {@code nanos} for flushes, or level 0 compactions, to catch up before it could write. */
    public void writeStalled(long nanos) {
        writeStalls.increment();
        writeStallNanos.add(nanos);
    }

    /** A table's Bloom filter ruled a key out: a point read skipped that table without reading a block. */
    public void bloomRuledOut() {
        bloomNegatives.increment();
    }

    /** A memtable was written to a table of {@code bytes}. */
    public void flushed(long bytes) {
        flushes.increment();
        flushedBytes.add(bytes);
    }

    /** A compaction installed its output of {@code bytes} (0 when everything it merged was dropped). */
    public void compacted(long bytes) {
        compactions.increment();
        compactedBytes.add(bytes);
    }

    /**
     * A flush or a compaction failed (and was logged): the store goes on without its work, so an operator
     * should look at the log before tables pile up or, after a failed flush, writes are refused.
     */
    public void backgroundFailed() {
        backgroundErrors.increment();
    }

    public long walSyncs() {
        return walSyncs.sum();
    }

    public long writeStalls() {
        return writeStalls.sum();
    }

    public long writeStallNanos() {
        return writeStallNanos.sum();
    }

    public long bloomNegatives() {
        return bloomNegatives.sum();
    }

    public long flushes() {
        return flushes.sum();
    }

    public long flushedBytes() {
        return flushedBytes.sum();
    }

    public long compactions() {
        return compactions.sum();
    }

    public long compactedBytes() {
        return compactedBytes.sum();
    }

    public long backgroundErrors() {
        return backgroundErrors.sum();
    }
}
