package io.kvstore.cluster.internal.repair;

import io.kvstore.cluster.Partitioner;

/**
 * The keys two nodes should both hold: those whose first {@code replicationFactor} replicas include
 * both. Placement is prefix-stable, so these are also the keys both hold for any smaller write
 * {@code from}. Not thread-safe (one scratch array); one instance per scan.
 */
final class SharedKeys {
    private final Partitioner partitioner;
    private final int replicationFactor;
    private final int first;
    private final int second;
    private final int[] scratch;

    SharedKeys(Partitioner partitioner, int replicationFactor, int first, int second) {
        this.partitioner = partitioner;
        this.replicationFactor = replicationFactor;
        this.first = first;
        this.second = second;
        this.scratch = new int[replicationFactor];
    }

    boolean contains(byte[] key) {
        if (replicationFactor == partitioner.nodes().size()) {
            return true;
        }
        int[] replicas = partitioner.replicas(key, replicationFactor, scratch);
        boolean sawFirst = false;
        boolean sawSecond = false;
        for (int i = 0; i < replicationFactor; i++) {
            sawFirst |= replicas[i] == first;
            sawSecond |= replicas[i] == second;
        }
        return sawFirst && sawSecond;
    }
}
