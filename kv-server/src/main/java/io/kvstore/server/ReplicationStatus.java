package io.kvstore.server;

import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.HintedHandoff;
import io.kvstore.cluster.ReplicaCoordinator;
import io.kvstore.cluster.ReplicationOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The replication part of {@code /v0/status}: the replication factor and repair settings, each peer as
 * this node sees it ({@code url}, {@code state}, {@code lastSeenMillis}, {@code hintsPending},
 * {@code hintBytesPending}) and what hinted handoff did.
 */
final class ReplicationStatus {
    private final ReplicaCoordinator coordinator;
    private final ReplicationOptions options;
    private final FailureDetector detector;
    /** Null when hinted handoff is off or the node is alone. */
    private final HintedHandoff hints;

    ReplicationStatus(ReplicaCoordinator coordinator, ReplicationOptions options, FailureDetector detector,
                      HintedHandoff hints) {
        this.coordinator = coordinator;
        this.options = options;
        this.detector = detector;
        this.hints = hints;
    }

    void addTo(JsonObject status) {
        JsonArray peers = new JsonArray();
        for (int node = 0; node < detector.nodes().size(); node++) {
            if (node == detector.self()) {
                continue;
            }
            long lastSeen = detector.lastSeenMillis(node);
            peers.add(new JsonObject()
                    .put("url", detector.nodes().get(node))
                    .put("state", detector.state(node).id())
                    .put("lastSeenMillis", lastSeen == 0 ? null : lastSeen)
                    .put("downSinceMillis", detector.downSinceMillis(node) == 0 ? null : detector.downSinceMillis(node))
                    .put("hintsPending", hints == null ? 0 : hints.pendingHints(node))
                    .put("hintBytesPending", hints == null ? 0 : hints.pendingHintBytes(node)));
        }
        status.put("replicationFactor", coordinator.replicationFactor())
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
                    .put("failedToStore", counters.failedToStore);
        }
        status.put("hints", handoff);
    }
}
