package io.kvstore.bench.load;

import java.util.SplittableRandom;

/** Picks the index of the next key, in {@code [0, keyCount)}. One instance per worker thread. */
interface KeyChooser {

    long next(SplittableRandom random);

    static KeyChooser of(String distribution, long keyCount) {
        switch (distribution) {
            case "uniform":
                return random -> random.nextLong(keyCount);
            case "zipfian":
                return new ZipfianKeys(keyCount, ZipfianKeys.DEFAULT_THETA);
            default:
                throw new IllegalArgumentException("unknown key distribution '" + distribution
                        + "' (expected uniform or zipfian)");
        }
    }
}
