package io.kvstore.server.metrics;

import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.PeerState;
import io.kvstore.cluster.internal.HintedHandoff;
import io.kvstore.server.internode.Topology;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Each peer of the current cluster map as this node sees it, labelled {@code peer} with its URL: whether its
 * failure detector judges it up, and the hints waiting for it, as {@code /v0/status} shows them. The peers
 * change with the map, so {@link #refresh()} rebuilds the rows at each scrape; a peer that left the map
 * leaves the exposition.
 */
public final class PeerMetrics {
    private final Supplier<Topology> topology;
    /** Null when hinted handoff is off: the hint gauges stay absent. */
    private final HintedHandoff hints;
    private final MultiGauge up;
    private final MultiGauge hintsPending;
    private final MultiGauge hintBytesPending;

    public PeerMetrics(MeterRegistry registry, Supplier<Topology> topology, HintedHandoff hints) {
        this.topology = topology;
        this.hints = hints;
        up = MultiGauge.builder("kv.peer.up")
                .description("1 while this node's failure detector judges the peer up, 0 once its requests and probes keep failing")
                .register(registry);
        hintsPending = hints == null ? null : MultiGauge.builder("kv.hints.pending")
                .description("Hints this node keeps for the peer, waiting to be replayed")
                .register(registry);
        hintBytesPending = hints == null ? null : MultiGauge.builder("kv.hints.pending.size")
                .description("Bytes of the hints this node keeps for the peer").baseUnit("bytes")
                .register(registry);
        refresh();
    }

    /** Reads each peer's state and hints for the gauges to report; from memory, never blocks. */
    void refresh() {
        Topology current = topology.get();
        if (current == null) {
            return;
        }
        FailureDetector detector = current.detector();
        List<MultiGauge.Row<?>> states = new ArrayList<>();
        List<MultiGauge.Row<?>> counts = new ArrayList<>();
        List<MultiGauge.Row<?>> bytes = new ArrayList<>();
        for (int node = 0; node < detector.nodes().size(); node++) {
            if (node == detector.self()) {
                continue;
            }
            String url = detector.nodes().get(node);
            Tags peer = Tags.of("peer", url);
            states.add(MultiGauge.Row.of(peer, detector.state(node) == PeerState.UP ? 1 : 0));
            if (hints != null) {
                counts.add(MultiGauge.Row.of(peer, hints.pendingHints(url)));
                bytes.add(MultiGauge.Row.of(peer, hints.pendingHintBytes(url)));
            }
        }
        up.register(states, true);
        if (hints != null) {
            hintsPending.register(counts, true);
            hintBytesPending.register(bytes, true);
        }
    }
}
