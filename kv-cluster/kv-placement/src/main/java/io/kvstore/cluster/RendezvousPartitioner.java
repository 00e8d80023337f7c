package io.kvstore.cluster;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Rendezvous hashing (highest random weight, Thaler &amp; Ravishankar): every node gets a weight for
 * the key, {@code KeyHash.mix(hash64(key) ^ hash64(utf8(name)))}, and the heaviest node wins; equal
 * weights go to the lower node index.
 *
 * <p>Replicas beyond the first: the next heaviest nodes, in decreasing weight. Removing a node moves
 * only the keys it held (each to its next heaviest node); adding one moves to it about
 * {@code 1/(n+1)} of the keys. A lookup costs O(n) weights, O(count x n) for {@code count} replicas,
 * with no allocation.
 */
final class RendezvousPartitioner extends AbstractPartitioner {
    private final long[] nodeHashes;

    RendezvousPartitioner(List<String> nodes) {
        super("rendezvous", nodes);
        this.nodeHashes = new long[size];
        for (int i = 0; i < size; i++) {
            nodeHashes[i] = KeyHash.hash64(nodes.get(i).getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public int primary(byte[] key) {
        long keyHash = KeyHash.hash64(key);
        int best = 0;
        long bestWeight = KeyHash.mix(keyHash ^ nodeHashes[0]);
        for (int node = 1; node < size; node++) {
            long weight = KeyHash.mix(keyHash ^ nodeHashes[node]);
            if (weight > bestWeight) {
                best = node;
                bestWeight = weight;
            }
        }
        return best;
    }

    @Override
    void fillReplicas(byte[] key, int count, int[] out) {
        long keyHash = KeyHash.hash64(key);
        // Selection by rank: each pass takes the best node ranked strictly after the previous pick,
        // where rank orders by weight descending, then index ascending. No allocation, no sort.
        long previousWeight = 0;
        int previousNode = -1;
        for (int filled = 0; filled < count; filled++) {
            int best = -1;
            long bestWeight = 0;
            for (int node = 0; node < size; node++) {
                long weight = KeyHash.mix(keyHash ^ nodeHashes[node]);
                boolean afterPrevious = previousNode < 0
                        || weight < previousWeight || (weight == previousWeight && node > previousNode);
                if (afterPrevious && (best < 0 || weight > bestWeight)) {
                    best = node;
                    bestWeight = weight;
                }
            }
            out[filled] = best;
            previousWeight = bestWeight;
            previousNode = best;
        }
    }
}
