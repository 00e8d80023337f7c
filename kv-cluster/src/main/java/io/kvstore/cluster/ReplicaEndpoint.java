package io.kvstore.cluster;

import io.kvstore.core.Bytes;
import io.kvstore.core.Entry;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The replica side of replication: what a node does with a read or a write that another node's
 * coordinator sent it. A transport (the server's internal HTTP route) decodes a request, calls this, and
 * encodes the answer; the rules live here, once.
 *
 * <p>A write is refused if its timestamp is further ahead of this node's clock than
 * {@link HybridClock#MAX_AHEAD_MILLIS}; otherwise the clock observes it, once, and the local replica
 * stores it. Reads go to the local replica as they are. Thread-safe.
 */
public final class ReplicaEndpoint {
    private final Replica local;
    private final HybridClock clock;

    public ReplicaEndpoint(Replica local, HybridClock clock) {
        this.local = Objects.requireNonNull(local, "local");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The local version of {@code key}, possibly a tombstone, or {@code null}. */
    public CompletionStage<Entry> read(byte[] key) {
        return local.get(key);
    }

    /**
     * Stores a replicated write on the local replica.
     *
     * @return a stage failed with {@link TimestampOutOfBoundsException} for a timestamp too far ahead
     */
    public CompletionStage<Void> apply(Entry entry) {
        if (!clock.accepts(entry.timestamp())) {
            return CompletableFuture.failedFuture(new TimestampOutOfBoundsException("write of key '"
                    + Bytes.toDebugString(entry.key()) + "' timestamped " + entry.timestamp() + ", "
                    + (HybridClock.millisOf(entry.timestamp()) - HybridClock.millisOf(clock.now()))
                    + " ms past this node's clock: more than " + HybridClock.MAX_AHEAD_MILLIS + " ms"));
        }
        clock.observe(entry.timestamp());
        return local.upsert(entry);
    }
}
