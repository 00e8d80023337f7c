package io.kvstore.cluster;

import io.kvstore.core.Entry;
import java.util.concurrent.CompletionStage;

/**
 * One copy of the data as the coordinator sees it: the local Dao, or a remote node reached over
 * the network. Methods never block the caller; failures complete the stage exceptionally.
 */
public interface Replica {

    /** The visible version of {@code key} on this replica (possibly a tombstone), or {@code null}. */
    CompletionStage<Entry> get(byte[] key);

    /** Stores a value or a tombstone with the timestamp it carries. */
    CompletionStage<Void> upsert(Entry entry);

    /**
     * Completes normally if the replica is reachable and serving: the light probe of failure detection.
     * A local replica always is.
     */
    default CompletionStage<Void> ping() {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** Stores a tombstone for {@code key} at {@code timestamp}. */
    default CompletionStage<Void> delete(byte[] key, long timestamp) {
        return upsert(Entry.tombstone(key, timestamp));
    }
}
