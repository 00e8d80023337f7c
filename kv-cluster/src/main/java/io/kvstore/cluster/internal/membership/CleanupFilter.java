package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.KeyFilter;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The keys a node keeps through a cleanup: those it owns under the settled map the cleanup started
 * from and, since a cleanup rewrites the whole store while the map may move on, those it owns or is
 * about to own under the newest map, read again as each key is decided. A key this node gains from a
 * change begun after the cleanup started is never dropped by it. Thread-safe.
 */
public final class CleanupFilter implements KeyFilter {
    private final OwnedKeys settled;
    private final long settledEpoch;
    private final Supplier<ClusterMap> newest;
    private final String self;
    /** The placements of the newest map seen; replaced when the map changes. */
    private volatile Placements latest;

    /** The current and, during a change, future placements of one map, from this node's side. */
    private record Placements(ClusterMap map, Partitioner current, int currentSelf, Partitioner future, int futureSelf) {
        static Placements of(ClusterMap map, String self) {
            Partitioner current = map.placement();
            Partitioner future = map.inTransition() ? map.futurePlacement() : null;
            return new Placements(map, current, current.nodes().indexOf(self), future,
                    future == null ? -1 : future.nodes().indexOf(self));
        }

        boolean owns(byte[] key) {
            int rf = map.replicationFactor();
            return contains(current, key, rf, currentSelf) || (future != null && contains(future, key, rf, futureSelf));
        }

        private static boolean contains(Partitioner placement, byte[] key, int rf, int node) {
            if (node < 0) {
                return false;
            }
            if (rf >= placement.nodes().size()) {
                return true;
            }
            for (int replica : placement.replicas(key, rf)) {
                if (replica == node) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * @param settled the settled map the cleanup runs under
     * @param newest  the node's map as it is now, read as keys are decided
     * @throws IllegalArgumentException as {@link OwnedKeys} does: a map in transition, a node without
     *                                  ranges in it
     */
    public CleanupFilter(ClusterMap settled, String self, Supplier<ClusterMap> newest) {
        this.settled = new OwnedKeys(settled, self);
        this.settledEpoch = settled.epoch();
        this.self = Objects.requireNonNull(self, "self");
        this.newest = Objects.requireNonNull(newest, "newest");
    }

    /** Whether the node keeps everything it holds under the settled map. */
    public boolean keepsAll() {
        return settled.keepsAll();
    }

    @Override
    public boolean keeps(byte[] key) {
        if (settled.keeps(key)) {
            return true;
        }
        ClusterMap now = newest.get();
        if (now.epoch() == settledEpoch) {
            return false;
        }
        Placements placements = latest;
        if (placements == null || placements.map() != now) {
            placements = Placements.of(now, self);
            latest = placements;
        }
        return placements.owns(key);
    }
}
