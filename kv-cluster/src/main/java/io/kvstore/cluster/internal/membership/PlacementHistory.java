package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The placements of this node's last few maps, so that a replica can tell whether a request sent on
 * an older map reaches the replicas its own map would choose. A key's replicas in a map are its first
 * RF owners and, while a change is under way, its first RF future owners: the nodes a write goes to.
 */
public final class PlacementHistory {
    /** How many maps are kept: a request on an older one is refused whatever its key. */
    static final int KEPT = 16;
    private final ConcurrentSkipListMap<Long, Placement> placements = new ConcurrentSkipListMap<>();

    /** Keeps {@code map}'s placement, forgetting the oldest beyond {@link #KEPT}. */
    public void add(ClusterMap map) {
        placements.put(map.epoch(), new Placement(map));
        while (placements.size() > KEPT) {
            placements.pollFirstEntry();
        }
    }

    /**
     * The replica's epoch fence: the epoch of the newest map if {@code key}'s replicas changed since the
     * map of {@code epoch} (or that map is no longer kept), else -1.
     */
    public long movedSince(long epoch, byte[] key) {
        Map.Entry<Long, Placement> newest = placements.lastEntry();
        if (newest == null || epoch >= newest.getKey()) {
            return -1;
        }
        Placement then = placements.get(epoch);
        if (then == null) {
            return newest.getKey();
        }
        return then.replicas(key).equals(newest.getValue().replicas(key)) ? -1 : newest.getKey();
    }

    /**
     * Whether {@code node} is one of {@code key}'s replicas under the newest map (false before any map):
     * a hint for a node that is not is delivered to no one.
     */
    public boolean isReplica(String node, byte[] key) {
        Map.Entry<Long, Placement> newest = placements.lastEntry();
        return newest != null && newest.getValue().replicas(key).contains(node);
    }

    /** One map's partitioners, built once. */
    private static final class Placement {
        private final int replicationFactor;
        private final Partitioner current;
        /** Null while no change is under way. */
        private final Partitioner future;

        Placement(ClusterMap map) {
            this.replicationFactor = map.replicationFactor();
            this.current = map.placement();
            this.future = map.inTransition() ? map.futurePlacement() : null;
        }

        Set<String> replicas(byte[] key) {
            Set<String> nodes = new HashSet<>();
            add(nodes, current, key);
            if (future != null) {
                add(nodes, future, key);
            }
            return nodes;
        }

        private void add(Set<String> nodes, Partitioner partitioner, byte[] key) {
            for (int node : partitioner.replicas(key, Math.min(replicationFactor, partitioner.nodes().size()))) {
                nodes.add(partitioner.nodes().get(node));
            }
        }
    }
}
