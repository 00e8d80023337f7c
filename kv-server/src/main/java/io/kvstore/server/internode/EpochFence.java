package io.kvstore.server.internode;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * This node's map epoch as internode requests are fenced by it. Every internal request carries its
 * coordinator's epoch and every answer the replica's. A replica behind the coordinator catches up
 * before it answers; a replica whose map moved the key's replicas after the coordinator's epoch
 * refuses the request (421 with its epoch), and the coordinator retries on the newer map. A write
 * thus never lands only on replicas that an older map chose after the change that moved it began.
 */
public interface EpochFence {
    /** No map: nothing is observed, nothing refused (a node whose requests carry no epoch). */
    EpochFence NONE = new EpochFence() {
        @Override
        public long epoch() {
            return 0;
        }

        @Override
        public void observe(long epoch, String node) {
        }

        @Override
        public CompletionStage<Void> reached(long epoch) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public long movedSince(long epoch, byte[] key) {
            return -1;
        }
    };

    /** This node's map epoch. */
    long epoch();

    /**
     * A peer's request or answer carried {@code epoch}: if that is newer than this node's, pull the
     * newer map (from {@code node} if it is a member).
     */
    void observe(long epoch, String node);

    /** Completes once this node holds a map of {@code epoch} or newer; never fails. */
    CompletionStage<Void> reached(long epoch);

    /**
     * This node's epoch if its map moved {@code key}'s replicas since the map of {@code epoch}, or if it
     * no longer knows that map; -1 if {@code epoch} is not older than this node's or the key's replicas
     * are the same in both.
     */
    long movedSince(long epoch, byte[] key);
}
