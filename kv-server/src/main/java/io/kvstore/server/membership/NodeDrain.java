package io.kvstore.server.membership;

import io.kvstore.cluster.FailureDetector;
import io.kvstore.server.internode.MembershipClient;
import io.kvstore.server.internode.Topology;
import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.Responses;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.ObjIntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stopping node's first step, and its peers' side of it. The node tells every peer of its map that it
 * is draining before it stops listening: their coordinators then leave it out of requests at once
 * (hinting its writes) instead of finding it gone through failed requests, and their failure
 * detectors keep it out until it serves again: the restarted node says so as it starts, and a probe it
 * answers would tell them too. Meanwhile the node answers its probes with 503 and finishes what it holds.
 * A liveness signal, not a change of the map.
 */
public final class NodeDrain {
    /** How long a stopping node waits for its peers to take note; a peer that does not answer learns from failures. */
    static final long ANNOUNCE_TIMEOUT_MILLIS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(NodeDrain.class);

    private final Membership membership;
    private volatile boolean draining;

    NodeDrain(Membership membership) {
        this.membership = membership;
    }

    /** Whether this node is stopping: its probes are answered 503 so that no peer thinks it back. */
    public boolean draining() {
        return draining;
    }

    /**
     * Marks this node draining and tells every other node of its map; completes once each answered or
     * gave up (never exceptionally), with whether there was any other node. Called once, from any thread.
     */
    public CompletionStage<Boolean> announce() {
        draining = true;
        return tellPeers("draining", (peer, client) -> client.draining(peer, ANNOUNCE_TIMEOUT_MILLIS));
    }

    /**
     * Tells every other node of the map that this node serves, so that a peer that held it as draining
     * (it restarted) takes it back at once; completes once each answered or gave up, never exceptionally.
     */
    public CompletionStage<Boolean> announceServing() {
        return tellPeers("serving", (peer, client) -> client.serving(peer, ANNOUNCE_TIMEOUT_MILLIS));
    }

    private CompletionStage<Boolean> tellPeers(String what, BiFunction<String, MembershipClient, Future<Void>> tell) {
        Topology topology = membership.get();
        if (topology == null) {
            return CompletableFuture.completedFuture(false);
        }
        List<Future<Void>> told = new ArrayList<>();
        for (String peer : topology.detector().nodes()) {
            if (!peer.equals(membership.self())) {
                told.add(tell.apply(peer, membership.client()).onFailure(error ->
                        LOG.info("could not tell {} that this node is {}: {}", peer, what, error.getMessage())));
            }
        }
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        Future.join(told).onComplete(all -> done.complete(!told.isEmpty()));
        return done;
    }

    /** {@code POST /internal/v0/draining} from the peer the node header names: 204, or 404 if it is not in the map. */
    void peerDraining(HttpServerRequest request) {
        onPeer(request, FailureDetector::draining);
    }

    /** {@code DELETE /internal/v0/draining}: the peer the node header names serves again. */
    void peerServing(HttpServerRequest request) {
        onPeer(request, FailureDetector::serving);
    }

    private void onPeer(HttpServerRequest request, ObjIntConsumer<FailureDetector> mark) {
        String node = request.getHeader(Headers.NODE);
        if (node == null || node.isEmpty()) {
            Responses.send(request, 400, "missing " + Headers.NODE + " header naming the node");
            return;
        }
        FailureDetector detector = membership.get().detector();
        int index = detector.nodes().indexOf(node);
        if (index < 0) {
            Responses.send(request, 404, node + " is not a node of this map");
            return;
        }
        mark.accept(detector, index);
        request.response().setStatusCode(204).end();
    }
}
