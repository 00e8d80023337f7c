package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.membership.ClusterMap;
import java.util.concurrent.CompletionStage;

/** This node's committed cluster map, and the way to commit the next one. */
public interface MapLog {
    /** The map this node acts on: the last one it committed or learned. */
    ClusterMap map();

    /**
     * Commits {@code next} as the map of the epoch after {@code expectedEpoch} and installs it here.
     * Completes with false, having installed the map that won, when another map was decided for that
     * epoch first or this node's map is no longer at {@code expectedEpoch}; fails with
     * {@link io.kvstore.cluster.internal.metadata.NoMajorityException} when no majority of the metadata
     * group answers, and with another {@link java.io.IOException} when the map cannot be kept.
     *
     * @param force commit without a majority of the metadata group: only for an operator's forced
     *              removal once that majority is lost for good
     */
    CompletionStage<Boolean> commit(long expectedEpoch, ClusterMap next, boolean force);
}
