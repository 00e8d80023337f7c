package io.kvstore.bench.partitioners;

import io.kvstore.cluster.Partitioner;

/** How evenly one partitioner spreads a set of keys: keys per node and their spread. */
final class LoadStats {
    final long[] keysPerNode;
    final double peakToMean;
    /** Standard deviation of keys per node over the mean (coefficient of variation). */
    final double relativeStdDev;

    private LoadStats(long[] keysPerNode) {
        this.keysPerNode = keysPerNode;
        double mean = 0;
        long peak = 0;
        for (long k : keysPerNode) {
            mean += k;
            peak = Math.max(peak, k);
        }
        mean /= keysPerNode.length;
        double variance = 0;
        for (long k : keysPerNode) {
            variance += (k - mean) * (k - mean);
        }
        variance /= keysPerNode.length;
        this.peakToMean = peak / mean;
        this.relativeStdDev = Math.sqrt(variance) / mean;
    }

    static LoadStats of(Partitioner partitioner, byte[][] keys) {
        long[] counts = new long[partitioner.nodes().size()];
        for (byte[] key : keys) {
            counts[partitioner.primary(key)]++;
        }
        return new LoadStats(counts);
    }

    /** Share of keys whose first replica is a different node in {@code after} than in {@code before}. */
    static double movedShare(Partitioner before, Partitioner after, byte[][] keys) {
        long moved = 0;
        for (byte[] key : keys) {
            String was = before.nodes().get(before.primary(key));
            String is = after.nodes().get(after.primary(key));
            if (!was.equals(is)) {
                moved++;
            }
        }
        return (double) moved / keys.length;
    }
}
