package io.kvstore.cluster;

import java.util.concurrent.ThreadLocalRandom;

/** Seeds for randomized tests: printed, and replayable with {@code -Dkvstore.seed=N}. */
final class Seeds {
    private Seeds() {
    }

    static long seed(String test) {
        String fixed = System.getProperty("kvstore.seed");
        long seed = fixed != null ? Long.parseLong(fixed) : ThreadLocalRandom.current().nextLong();
        System.out.println(test + ": seed " + seed + " (replay with -Dkvstore.seed=" + seed + ")");
        return seed;
    }
}
