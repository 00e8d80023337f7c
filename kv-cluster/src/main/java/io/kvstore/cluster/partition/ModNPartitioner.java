package io.kvstore.cluster.partition;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import java.util.List;

/**
 * The baseline: node = hash(key) mod n (unsigned); replicas beyond the first are the next nodes in
 * list order, wrapping. Perfect balance and O(1), but when n changes about n/(n+1) of the keys move.
 */
public final class ModNPartitioner implements Partitioner {
    private final List<String> nodes;

    public ModNPartitioner(List<String> nodes) {
        this.nodes = NodeList.validate(nodes);
    }

    @Override
    public List<String> nodes() {
        return nodes;
    }

    @Override
    public int primary(byte[] key) {
        return (int) Long.remainderUnsigned(KeyHash.hash(key), nodes.size());
    }

    @Override
    public int[] replicas(byte[] key, int count, int[] out) {
        NodeList.checkCount(count, nodes.size(), out);
        int node = primary(key);
        for (int i = 0; i < count; i++) {
            out[i] = node;
            node = node + 1 == nodes.size() ? 0 : node + 1;
        }
        return out;
    }
}
