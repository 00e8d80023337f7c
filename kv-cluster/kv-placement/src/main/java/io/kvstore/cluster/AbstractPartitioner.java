package io.kvstore.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What every partitioner shares: the validated, immutable node list and the argument checks of
 * {@link #replicas(byte[], int, int[])}. Subclasses only place keys.
 */
abstract class AbstractPartitioner implements Partitioner {
    private final String algorithm;
    private final List<String> nodes;
    /** The number of nodes, cached for the hot path. */
    final int size;

    AbstractPartitioner(String algorithm, List<String> nodes) {
        this.algorithm = algorithm;
        this.nodes = validated(algorithm, nodes);
        this.size = this.nodes.size();
    }

    @Override
    public final List<String> nodes() {
        return nodes;
    }

    @Override
    public final int[] replicas(byte[] key, int count, int[] out) {
        if (count < 1 || count > size) {
            throw new IllegalArgumentException(algorithm + " partitioner: replica count " + count
                    + " is out of range [1, " + size + "] (the number of nodes)");
        }
        if (out.length < count) {
            throw new IllegalArgumentException(algorithm + " partitioner: output array of length " + out.length
                    + " cannot hold " + count + " replicas");
        }
        if (count == 1) {
            out[0] = primary(key);
        } else {
            fillReplicas(key, count, out);
        }
        return out;
    }

    /**
     * Writes {@code count} distinct node indexes, primary first, into {@code out[0..count)}.
     * {@code 2 <= count <= size} and {@code out.length >= count} are already checked. Must be
     * prefix-stable: the first {@code f} indexes may not depend on {@code count}.
     */
    abstract void fillReplicas(byte[] key, int count, int[] out);

    /** Whether {@code node} is among {@code out[0..filled)}; replica counts are small, so a scan wins. */
    static boolean contains(int[] out, int filled, int node) {
        for (int i = 0; i < filled; i++) {
            if (out[i] == node) {
                return true;
            }
        }
        return false;
    }

    /**
     * The one node not among {@code out[0..size-1)}, when every other node is already chosen. Any
     * placement rule that only ever picks unchosen nodes must pick it next, so taking it directly
     * changes no result; it spares a 3-node cluster's third replica the search for the last node.
     */
    final int lastMissingNode(int[] out) {
        long missing = (long) size * (size - 1) / 2;
        for (int i = 0; i < size - 1; i++) {
            missing -= out[i];
        }
        return (int) missing;
    }

    @Override
    public String toString() {
        return algorithm + nodes;
    }

    private static List<String> validated(String algorithm, List<String> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException(algorithm + " partitioner needs at least one node, got "
                    + (nodes == null ? "null" : "an empty list"));
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            String node = nodes.get(i);
            if (node == null || node.isEmpty()) {
                throw new IllegalArgumentException(algorithm + " partitioner: node #" + i + " has "
                        + (node == null ? "a null" : "an empty") + " name in " + nodes);
            }
            if (!seen.add(node)) {
                throw new IllegalArgumentException(algorithm + " partitioner: duplicate node '" + node
                        + "' at position " + i + " in " + nodes);
            }
        }
        return Collections.unmodifiableList(new ArrayList<>(nodes));
    }
}
