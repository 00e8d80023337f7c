package io.kvstore.cluster.internal.repair;

import java.util.List;
import java.util.Map;

/**
 * The outcome of exchanges of one node with each of its peers ({@link AntiEntropy#repairAll()}).
 *
 * @param node          the node that drove them
 * @param summaries     the exchanges that completed, one per peer
 * @param failures      the peers whose exchange failed (unreachable, killed meanwhile, refusing),
 *                      with the reason, in the order they were tried
 * @param durationNanos from the first exchange's start to the last one's end
 */
public record RepairReport(String node, List<RepairSummary> summaries, Map<String, String> failures, long durationNanos) {

    /** Whether every peer's exchange completed. */
    public boolean succeeded() {
        return failures.isEmpty();
    }

    public long keysSent() {
        long sum = 0;
        for (RepairSummary summary : summaries) {
            sum += summary.keysSent();
        }
        return sum;
    }

    public long keysReceived() {
        long sum = 0;
        for (RepairSummary summary : summaries) {
            sum += summary.keysReceived();
        }
        return sum;
    }
}
