package io.kvstore.cluster.partition;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Rendezvous or highest-random-weight hashing (Thaler and Ravishankar): every node scores the key as
 * mix(hash(key) ^ hash(node)); the highest score wins. Replicas beyond the first are the next highest
 * scores, so they are prefix-stable by construction. Balance is that of independent random draws;
 * only the keys of a leaving node move, and a joining node takes about 1/(n+1). Cost is O(n) per key.
 */
public final class RendezvousPartitioner implements Partitioner {
    private final List<String> nodes;
    private final long[] nodeSeeds;

    public RendezvousPartitioner(List<String> nodes) {
        this.nodes = NodeList.validate(nodes);
        this.nodeSeeds = new long[this.nodes.size()];
        for (int i = 0; i < nodeSeeds.length; i++) {
            nodeSeeds[i] = KeyHash.hash(this.nodes.get(i).getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public List<String> nodes() {
        return nodes;
    }

    @Override
    public int primary(byte[] key) {
        long hash = KeyHash.hash(key);
        int best = 0;
        long bestScore = score(hash, 0);
        for (int node = 1; node < nodeSeeds.length; node++) {
            long s = score(hash, node);
            if (Long.compareUnsigned(s, bestScore) > 0) {
                best = node;
                bestScore = s;
            }
        }
        return best;
    }

    @Override
    public int[] replicas(byte[] key, int count, int[] out) {
        NodeList.checkCount(count, nodes.size(), out);
        long hash = KeyHash.hash(key);
        // Selection of the top `count` scores: count is small, so O(n * count) beats sorting.
        for (int filled = 0; filled < count; filled++) {
            int best = -1;
            long bestScore = 0;
            for (int node = 0; node < nodeSeeds.length; node++) {
                if (NodeList.contains(out, filled, node)) {
                    continue;
                }
                long s = score(hash, node);
                if (best < 0 || Long.compareUnsigned(s, bestScore) > 0) {
                    best = node;
                    bestScore = s;
                }
            }
            out[filled] = best;
        }
        return out;
    }

    private long score(long keyHash, int node) {
        return KeyHash.mix(keyHash ^ nodeSeeds[node]);
    }
}
