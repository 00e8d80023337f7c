package io.kvstore.cluster.partition;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import java.util.List;

/**
 * Jump consistent hash (Lamping and Veach, 2014): no memory, O(log n) time, near-perfect balance, and
 * only 1/(n+1) of keys move when a node is appended. Its limit: buckets are numbered, so only the last
 * node can leave without reshuffling others.
 *
 * <p>Replicas beyond the first: replica i is jump(mix(hash + i * golden), n), skipping nodes already
 * chosen; each attempt is a fresh, independent draw, so the sequence is deterministic and
 * prefix-stable. After 8n attempts (vanishingly rare) the remaining replicas are the next unused nodes
 * in list order, which keeps the worst case bounded.
 */
public final class JumpPartitioner implements Partitioner {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final List<String> nodes;

    public JumpPartitioner(List<String> nodes) {
        this.nodes = NodeList.validate(nodes);
    }

    @Override
    public List<String> nodes() {
        return nodes;
    }

    @Override
    public int primary(byte[] key) {
        return jump(KeyHash.hash(key), nodes.size());
    }

    @Override
    public int[] replicas(byte[] key, int count, int[] out) {
        NodeList.checkCount(count, nodes.size(), out);
        long hash = KeyHash.hash(key);
        out[0] = jump(hash, nodes.size());
        int filled = 1;
        int maxAttempts = 8 * nodes.size();
        for (int attempt = 1; filled < count && attempt <= maxAttempts; attempt++) {
            int node = jump(KeyHash.mix(hash + attempt * GOLDEN), nodes.size());
            if (!NodeList.contains(out, filled, node)) {
                out[filled++] = node;
            }
        }
        for (int node = out[0]; filled < count; node = node + 1 == nodes.size() ? 0 : node + 1) {
            if (!NodeList.contains(out, filled, node)) {
                out[filled++] = node;
            }
        }
        return out;
    }

    /** The published algorithm: the bucket in [0, buckets) of {@code key}. */
    static int jump(long key, int buckets) {
        long b = -1;
        long j = 0;
        while (j < buckets) {
            b = j;
            key = key * 2862933555777941757L + 1;
            j = (long) ((b + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) b;
    }
}
