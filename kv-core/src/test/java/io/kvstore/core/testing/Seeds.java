package io.kvstore.core.testing;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Seeds for the randomized tests of every module: a new one each run, printed with the test's name,
 * or the one given with {@code -Dkv.seed=N} to replay a failure. Other modules reach it through
 * kv-core's test-jar.
 */
public final class Seeds {
    private Seeds() {
    }

    /** The seed for {@code test}: {@code -Dkv.seed} if set, else a random one; printed either way. */
    public static long seed(String test) {
        String fixed = System.getProperty("kv.seed");
        long seed = fixed != null ? Long.parseLong(fixed.trim()) : ThreadLocalRandom.current().nextLong();
        System.out.println(test + ": seed " + seed + " (replay with -Dkv.seed=" + seed + ")");
        return seed;
    }
}
