package io.kvstore.bench.load;

import java.util.SplittableRandom;

/**
 * Zipfian key popularity as in YCSB: the method of Gray et al., "Quickly generating billion-record
 * synthetic databases" (SIGMOD 1994), with the popular ranks scattered over the key space by a
 * 64-bit mix so the hot keys are not neighbours (which would favour one node of a range partitioner
 * or one SSTable block).
 */
final class ZipfianKeys implements KeyChooser {
    /** YCSB's default skew: the hottest key takes a few percent of all requests. */
    static final double DEFAULT_THETA = 0.99;

    private final long keyCount;
    private final double theta;
    private final double alpha;
    private final double zetaN;
    private final double eta;

    ZipfianKeys(long keyCount, double theta) {
        if (keyCount < 2) {
            throw new IllegalArgumentException("zipfian needs at least 2 keys, got " + keyCount);
        }
        this.keyCount = keyCount;
        this.theta = theta;
        this.alpha = 1.0 / (1.0 - theta);
        this.zetaN = zeta(keyCount, theta);
        double zeta2 = zeta(2, theta);
        this.eta = (1 - Math.pow(2.0 / keyCount, 1 - theta)) / (1 - zeta2 / zetaN);
    }

    @Override
    public long next(SplittableRandom random) {
        return scatter(rank(random.nextDouble()));
    }

    /** The popularity rank (0 = most popular) for a uniform draw {@code u} in [0, 1). */
    long rank(double u) {
        double uz = u * zetaN;
        if (uz < 1.0) {
            return 0;
        }
        if (uz < 1.0 + Math.pow(0.5, theta)) {
            return 1;
        }
        long rank = (long) (keyCount * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(rank, keyCount - 1);
    }

    private long scatter(long rank) {
        long z = rank + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return Long.remainderUnsigned(z, keyCount);
    }

    private static double zeta(long n, double theta) {
        double sum = 0;
        for (long i = 1; i <= n; i++) {
            sum += 1.0 / Math.pow(i, theta);
        }
        return sum;
    }
}
