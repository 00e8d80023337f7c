package io.kvstore.cluster.internal.repair;

import java.util.List;
import java.util.Map;

/**
 * The outcome of exchanges of one node with each of its peers ({@link AntiEntropy#repairAll()}), or of
 * the refetching of its refused key intervals ({@link AntiEntropy#heal}).
 *
 * @param node          the node that drove them
 * @param summaries     the exchanges that completed: one per refused interval and peer, then one per
 *                      peer over the whole key space, in the order they ran
 * @param heals         of those, the exchanges of refused intervals, which refetched them to heal them
 * @param failures      the exchanges that failed (a peer unreachable, killed meanwhile, refusing), with
 *                      the reason, in the order they were tried: by peer, followed by the interval for
 *                      an interval's exchange
 * @param refused       key intervals the store refused at the start, which the run was to heal
 * @param healed        of those, how many the store serves again
 * @param durationNanos from the first exchange's start to the last one's end
 */
public record RepairReport(String node, List<RepairSummary> summaries, List<RepairSummary> heals, Map<String, String> failures,
        int refused,
        int healed, long durationNanos) {

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
