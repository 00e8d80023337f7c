package io.kvstore.cluster;

import java.util.List;

/**
 * Places keys on nodes. Nodes are identified by their index in {@link #nodes()}, the order in which
 * the cluster was configured (the same on every node).
 *
 * <p>Every implementation is deterministic across processes, JVMs and restarts (it depends only on
 * the key bytes and the node list) and prefix-stable: the replicas for {@code count = f} are the
 * first {@code f} of the replicas for {@code f + 1}.
 */
public interface Partitioner {

    /** The nodes, in configured order; indexes returned by this partitioner point into this list. */
    List<String> nodes();

    /** The index of the node holding the first replica of {@code key}. Allocation-free. */
    int primary(byte[] key);

    /**
     * Writes the indexes of {@code count} distinct nodes for {@code key} into {@code out[0..count)},
     * first replica first, and returns {@code out}.
     *
     * @throws IllegalArgumentException if {@code count < 1}, {@code count > nodes().size()} or
     *                                  {@code out.length < count}
     */
    int[] replicas(byte[] key, int count, int[] out);

    /** Convenience form of {@link #replicas(byte[], int, int[])} that allocates the result. */
    default int[] replicas(byte[] key, int count) {
        return replicas(key, count, new int[count]);
    }
}
