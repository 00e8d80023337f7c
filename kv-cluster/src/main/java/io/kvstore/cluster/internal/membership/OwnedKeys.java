package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.KeyFilter;
import java.util.Objects;

/**
 * The keys one node owns under a settled cluster map: those whose first {@code RF} replicas include it.
 * What a node keeps through {@link io.kvstore.core.Dao#cleanup} once a change of the map completed;
 * the others moved to the nodes that gained them. Thread-safe.
 */
public final class OwnedKeys implements KeyFilter {
    private final Partitioner placement;
    private final int replicationFactor;
    private final int node;

    /**
     * @throws IllegalArgumentException if the map is in transition (ownership is not settled) or
     *                                  {@code url} owns no range in it
     */
    public OwnedKeys(ClusterMap map, String url) {
        Objects.requireNonNull(url, "url");
        if (map.inTransition()) {
            throw new IllegalArgumentException("the cluster map of epoch " + map.epoch() + " is in transition: " + map);
        }
        this.placement = map.placement();
        this.replicationFactor = map.replicationFactor();
        this.node = placement.nodes().indexOf(url);
        if (node < 0) {
            throw new IllegalArgumentException("node " + url + " owns no range in the cluster map of epoch " + map.epoch());
        }
    }

    /** Whether every owner holds every key, so that a node keeps all it holds. */
    public boolean keepsAll() {
        return replicationFactor >= placement.nodes().size();
    }

    @Override
    public boolean keeps(byte[] key) {
        if (keepsAll()) {
            return true;
        }
        for (int replica : placement.replicas(key, replicationFactor)) {
            if (replica == node) {
                return true;
            }
        }
        return false;
    }
}
