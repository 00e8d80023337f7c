package io.kvstore.server.metrics;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.Member;
import io.kvstore.cluster.membership.NodeState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * The cluster map this node holds, read when scraped: its epoch, its fingerprint and its nodes by state. Every
 * node of a healthy cluster soon reports the same epoch and fingerprint, so a scraper that sees two values
 * for long has found nodes on different maps; nodes {@code joining} or {@code leaving} mean a change is under
 * way.
 */
public final class ClusterMapMetrics {
    /** The fingerprint's bits a gauge reports: a double holds 53 bits exactly, and 48 tell maps apart. */
    private static final int FINGERPRINT_BITS = 48;

    private ClusterMapMetrics() {
    }

    /** @param map this node's current map, {@code null} while it has none (its gauges are then NaN) */
    public static void bind(MeterRegistry registry, Supplier<ClusterMap> map) {
        Gauge.builder("kv.cluster.map.epoch", map, m -> m.get() == null ? Double.NaN : m.get().epoch())
                .description("Epoch of the cluster map this node holds")
                .strongReference(true).register(registry);
        Gauge.builder("kv.cluster.map.fingerprint", map, m -> m.get() == null ? Double.NaN
                        : m.get().fingerprint() >>> (Long.SIZE - FINGERPRINT_BITS))
                .description("The first 48 bits of the fingerprint of the cluster map this node holds, as a number:"
                        + " nodes on the same map report the same value")
                .strongReference(true).register(registry);
        for (NodeState state : NodeState.values()) {
            Gauge.builder("kv.cluster.map.nodes", map, m -> count(m.get(), state))
                    .description("Nodes of the cluster map this node holds, by state: joining or leaving ones mean a change is under way")
                    .tag("state", state.id())
                    .strongReference(true).register(registry);
        }
    }

    private static double count(ClusterMap map, NodeState state) {
        if (map == null) {
            return Double.NaN;
        }
        int nodes = 0;
        for (Member member : map.members()) {
            if (member.state() == state) {
                nodes++;
            }
        }
        return nodes;
    }
}
