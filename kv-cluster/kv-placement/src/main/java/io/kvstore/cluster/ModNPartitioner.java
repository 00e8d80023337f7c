package io.kvstore.cluster;

import java.util.List;

/**
 * The naive scheme, kept as a baseline: the primary is {@code hash64(key) mod n} (unsigned).
 *
 * <p>Replicas beyond the first: the next nodes in configured order, wrapping around. Perfectly
 * balanced, but changing {@code n} moves about {@code n/(n+1)} of all keys, which is why the
 * consistent schemes exist.
 */
final class ModNPartitioner extends AbstractPartitioner {

    ModNPartitioner(List<String> nodes) {
        super("modn", nodes);
    }

    @Override
    public int primary(byte[] key) {
        return (int) Long.remainderUnsigned(KeyHash.hash64(key), size);
    }

    @Override
    void fillReplicas(byte[] key, int count, int[] out) {
        int primary = primary(key);
        for (int i = 0; i < count; i++) {
            int node = primary + i;
            out[i] = node >= size ? node - size : node;
        }
    }
}
