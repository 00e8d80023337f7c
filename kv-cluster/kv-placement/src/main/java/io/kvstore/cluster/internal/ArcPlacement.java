package io.kvstore.cluster.internal;

/**
 * A placement that is constant over arcs of the 64-bit hash space: every key whose hash falls in
 * {@code (tokens[i-1], tokens[i]]} (wrapping around before {@code tokens[0]}) has the same replicas. The
 * ring partitioner is one; a change of membership can then tell from the tokens alone which nodes lose
 * any key, without reading a key.
 */
public interface ArcPlacement {

    /** The tokens, in signed order (a copy). */
    long[] tokens();

    /**
     * Writes the {@code count} replicas of every key hashing to {@code hash} into {@code out}, first
     * replica first, as {@code Partitioner.replicas} does for a key, and returns {@code out}.
     */
    int[] replicasOfHash(long hash, int count, int[] out);
}
