package io.kvstore.server.http;

import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.ReplicationOptions;
import io.kvstore.cluster.internal.HintedHandoff;
import io.kvstore.server.internode.Topology;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The replication part of {@code /v0/status}: the replication factor and repair settings, each peer as
 * this node sees it ({@code url}, {@code state}, {@code lastSeenMillis}, {@code hintsPending},
 * {@code hintBytesPending}) and what hinted handoff did, all of the current cluster map.
 */
public final class ReplicationStatus {
    private final Supplier<Topology> topology;
    private final ReplicationOptions options;
    /** Null when hinted handoff is off. */
    private final HintedHandoff hints;
    private final BooleanSupplier draining;

    /** {@code draining}: whether this node is stopping and has told its peers so. */
    public ReplicationStatus(Supplier<Topology> topology, ReplicationOptions options, HintedHandoff hints,
                             BooleanSupplier draining) {
        this.draining = draining;
        this.topology = topology;
        this.options = options;
        this.hints = hints;
    }

    void addTo(JsonObject status) {
        Topology current = topology.get();
        FailureDetector detector = current.detector();
        JsonArray peers = new JsonArray();
        for (int node = 0; node < detector.nodes().size(); node++) {
            if (node == detector.self()) {
                continue;
            }
            long lastSeen = detector.lastSeenMillis(node);
            String url = detector.nodes().get(node);
            peers.add(new JsonObject()
                    .put("url", url)
                    .put("state", detector.state(node).id())
                    .put("lastSeenMillis", lastSeen == 0 ? null : lastSeen)
                    .put("downSinceMillis", detector.downSinceMillis(node) == 0 ? null : detector.downSinceMillis(node))
                    .put("hintsPending", hints == null ? 0 : hints.pendingHints(url))
                    .put("hintBytesPending", hints == null ? 0 : hints.pendingHintBytes(url))
                    .put("hintReplayBytesPerSecond", hints == null ? 0 : hints.replayBytesPerSecond(url)));
        }
        status.put("draining", draining.getAsBoolean())
                .put("replicationFactor", current.replicationFactor())
                .put("readRepair", options.readRepair().id())
                .put("peers", peers);
        JsonObject handoff = new JsonObject().put("enabled", hints != null);
        if (hints != null) {
            HintedHandoff.Counters counters = hints.counters();
            handoff.put("stored", counters.stored)
                    .put("replayed", counters.replayed)
                    .put("droppedPastWindow", counters.droppedPastWindow)
                    .put("droppedFull", counters.droppedFull)
                    .put("expired", counters.expired)
                    .put("failedToStore", counters.failedToStore)
                    .put("droppedNodeLeft", counters.droppedNodeLeft)
                    .put("droppedNotReplica", counters.droppedNotReplica);
        }
        status.put("hints", handoff);
    }
}
