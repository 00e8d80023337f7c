package io.kvstore.cluster.internal.repair;

/**
 * What one exchange between two nodes did.
 *
 * @param local              the node that drove the exchange
 * @param peer               the other node
 * @param interval           the keys compared ({@link KeyInterval#ALL}: the whole store)
 * @param treeKeys           entries both sides' scans put in their trees: the keys of the interval
 *                           each side shares with the other (a side that did not say counts none)
 * @param segments           segments of the trees compared
 * @param segmentsDiffering  segments whose hashes differed, whose versions were listed
 * @param hashesCompared     tree nodes compared, on the way down from the root
 * @param versionsCompared   (key, timestamp) pairs listed by both sides for the differing segments
 * @param keysSent           entries sent to the peer (it lacked them or held them older)
 * @param keysReceived       entries received from the peer
 * @param bytesSent          bytes of the entries sent (keys, values, timestamps)
 * @param bytesReceived      bytes of the entries received
 * @param wireBytes          bytes the peer's connection carried both ways, trees and listings
 *                           included ({@link RepairPeer#wireBytes}); 0 for a peer in this process
 * @param durationNanos      from opening the trees to closing them
 */
public record RepairSummary(String local, String peer, KeyInterval interval, long treeKeys, int segments, int segmentsDiffering, long hashesCompared,
        long versionsCompared, long keysSent, long keysReceived, long bytesSent, long bytesReceived,
        long wireBytes, long durationNanos) {
}
