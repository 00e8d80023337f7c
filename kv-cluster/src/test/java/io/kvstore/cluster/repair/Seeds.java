package io.kvstore.cluster.repair;

import java.util.concurrent.ThreadLocalRandom;

/** Seeds for randomized tests: printed, and replayable with {@code -Dkv.seed=N}. */
final class Seeds {
    private Seeds() {
    }

    static long seed(String test) {
        String fixed = System.getProperty("kv.seed");
        long seed = fixed != null ? Long.parseLong(fixed) : ThreadLocalRandom.current().nextLong();
        System.out.println(test + ": seed " + seed + " (replay with -Dkv.seed=" + seed + ")");
        return seed;
    }
}
