package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.membership.ClusterMap;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * How the node driving a change of the cluster map reaches the other nodes: the signed internal
 * routes in the server, a simulated network in tests. Every call may fail (the node is down, slow or
 * cut off); the driver bounds each by its own timeout.
 */
public interface MembershipTransport {
    /**
     * Hands {@code map} to {@code node}, which adopts it if it is newer than its own, then hands it on to
     * {@code passOn} within {@code passOnMillis} as {@link MapRelay#handOn} does; completes with what
     * became of {@code passOn} ({@link MapRelay#notPassedOn} from a node that hands nothing on).
     */
    CompletionStage<MapRelay.Outcome> push(String node, ClusterMap map, List<String> passOn, long passOnMillis);

    /** Whether {@code node} answers at all (any answer counts; a failure means it does not). */
    CompletionStage<Boolean> answers(String node);

    /** Asks {@code node} to start (or go on with) its share of {@code movement}. */
    CompletionStage<Void> startStream(String node, KeyMovement movement);

    /** How {@code node}'s stream of {@code movement} goes (streams are told apart by {@link KeyMovement#streamName()}). */
    CompletionStage<StreamProgress> streamProgress(String node, KeyMovement movement);

    /** Asks {@code node} to drop the keys it does not own in the settled map of {@code epoch}. */
    CompletionStage<Void> cleanup(String node, long epoch);
}
