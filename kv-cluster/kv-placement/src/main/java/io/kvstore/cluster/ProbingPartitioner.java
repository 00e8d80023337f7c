package io.kvstore.cluster;

import java.util.List;

/**
 * A partitioner defined by a function from a 64-bit hash to a node ({@link #nodeOf(long)}), which picks
 * replicas beyond the first by probing that function again with re-mixed hashes.
 *
 * <p>The primary is {@code nodeOf(hash64(key))}. Each further replica takes up to
 * {@value #PROBES_PER_REPLICA} probes {@code nodeOf(mix(h + a * golden))}, {@code a = 1, 2, ...}
 * (one counter over the whole lookup), and keeps the first node not taken yet; if all of them hit taken
 * nodes, it takes the next free node after the primary in configured order; once every other node is
 * taken, the last one is taken directly, without probing. Probes are independent
 * uniform draws, so secondary replicas spread as evenly as primaries; the budget is per replica, not
 * per lookup, so the result is prefix-stable.
 */
abstract class ProbingPartitioner extends AbstractPartitioner {
    static final int PROBES_PER_REPLICA = 16;
    /** 2^64 / golden ratio: consecutive multiples are far apart, so probes never repeat a hash. */
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    ProbingPartitioner(String algorithm, List<String> nodes) {
        super(algorithm, nodes);
    }

    /** The node owning {@code hash}; allocation-free. */
    abstract int nodeOf(long hash);

    @Override
    public final int primary(byte[] key) {
        return nodeOf(KeyHash.hash64(key));
    }

    @Override
    final void fillReplicas(byte[] key, int count, int[] out) {
        long hash = KeyHash.hash64(key);
        out[0] = nodeOf(hash);
        long probe = 0;
        for (int filled = 1; filled < count; filled++) {
            if (filled == size - 1) {
                out[filled] = lastMissingNode(out);
                return;
            }
            int chosen = -1;
            for (int attempt = 0; attempt < PROBES_PER_REPLICA && chosen < 0; attempt++) {
                probe++;
                int candidate = nodeOf(KeyHash.mix(hash + probe * GOLDEN_GAMMA));
                if (!contains(out, filled, candidate)) {
                    chosen = candidate;
                }
            }
            if (chosen < 0) {
                chosen = out[0];
                while (contains(out, filled, chosen)) {
                    chosen = chosen + 1 == size ? 0 : chosen + 1;
                }
            }
            out[filled] = chosen;
        }
    }
}
