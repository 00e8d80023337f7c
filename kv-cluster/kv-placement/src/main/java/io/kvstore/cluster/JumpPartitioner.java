package io.kvstore.cluster;

import java.util.List;

/**
 * Jump consistent hash (Lamping &amp; Veach, 2014): maps a 64-bit hash to a bucket in {@code [0, n)}
 * with no state at all, in O(log n) steps. Buckets are node indexes, so nodes may only be added or
 * removed at the end of the list; removing a node in the middle renumbers the nodes after it.
 *
 * <p>Replicas beyond the first: re-mixed probes of the same function, see {@link ProbingPartitioner}.
 * Adding a node moves about {@code 1/(n+1)} of the primaries, all to the new node.
 */
final class JumpPartitioner extends ProbingPartitioner {

    JumpPartitioner(List<String> nodes) {
        super("jump", nodes);
    }

    @Override
    int nodeOf(long hash) {
        return jumpConsistentHash(hash, size);
    }

    /** The algorithm exactly as published ("A Fast, Minimal Memory, Consistent Hash Algorithm"). */
    static int jumpConsistentHash(long key, int buckets) {
        long bucket = -1;
        long next = 0;
        while (next < buckets) {
            bucket = next;
            key = key * 2862933555777941757L + 1;
            next = (long) ((bucket + 1) * ((double) (1L << 31) / (double) ((key >>> 33) + 1)));
        }
        return (int) bucket;
    }
}
