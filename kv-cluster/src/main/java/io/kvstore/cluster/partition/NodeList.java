package io.kvstore.cluster.partition;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Validation shared by every partitioner: the node list and the replica count. */
final class NodeList {
    private NodeList() {
    }

    /** An immutable copy of {@code nodes}, rejecting empty lists, blank names and duplicates. */
    static List<String> validate(List<String> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException("a partitioner needs at least one node");
        }
        Set<String> seen = new HashSet<>();
        for (String node : nodes) {
            if (node == null || node.isBlank()) {
                throw new IllegalArgumentException("node names must not be null or blank: " + nodes);
            }
            if (!seen.add(node)) {
                throw new IllegalArgumentException("duplicate node '" + node + "' in " + nodes);
            }
        }
        return List.copyOf(nodes);
    }

    static void checkCount(int count, int nodes, int[] out) {
        if (count < 1 || count > nodes) {
            throw new IllegalArgumentException("replica count must be in [1, " + nodes + "], got " + count);
        }
        if (out.length < count) {
            throw new IllegalArgumentException("output array of length " + out.length + " cannot hold " + count + " replicas");
        }
    }

    /** Whether {@code node} is among {@code out[0..filled)}; replica counts are small, so a scan wins. */
    static boolean contains(int[] out, int filled, int node) {
        for (int i = 0; i < filled; i++) {
            if (out[i] == node) {
                return true;
            }
        }
        return false;
    }
}
