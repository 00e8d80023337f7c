package io.kvstore.core.internal.table;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompressionBackoffTest {

    /** The blocks among {@code blocks} offered to the codec, where block i compresses iff {@code compresses}. */
    private static List<Integer> attempts(int blocks, IntPredicate compresses) {
        CompressionBackoff backoff = new CompressionBackoff();
        List<Integer> tried = new ArrayList<>();
        for (int i = 0; i < blocks; i++) {
            if (backoff.tryNext()) {
                tried.add(i);
                if (compresses.test(i)) {
                    backoff.compressed();
                } else {
                    backoff.incompressible();
                }
            }
        }
        return tried;
    }

    @Test
    void blocksThatCompressAreAllTried() {
        assertEquals(1000, attempts(1000, i -> true).size());
    }

    @Test
    void afterEachFailureTwiceAsManyBlocksAreSkippedUpToTheMaximum() {
        List<Integer> tried = attempts(1000, i -> false);
        assertEquals(List.of(0, 2, 5, 10, 19, 36, 69, 102, 135), tried.subList(0, 9));
        for (int k = 6; k < tried.size(); k++) {
            assertEquals(CompressionBackoff.MAX_SKIPPED + 1, tried.get(k) - tried.get(k - 1));
        }
        assertTrue(tried.size() <= 1000 / (CompressionBackoff.MAX_SKIPPED + 1) + 6, tried.toString());
    }

    @Test
    void valuesTurningCompressibleAreTriedWithinTheMaximumAndThenEveryBlock() {
        int turn = 500;
        List<Integer> tried = attempts(1000, i -> i >= turn);
        int first = tried.stream().filter(i -> i >= turn).findFirst().orElseThrow();
        assertTrue(first - turn <= CompressionBackoff.MAX_SKIPPED, "first tried at " + first);
        assertEquals(1000 - first, tried.stream().filter(i -> i >= first).count());
    }

    @Test
    void oneBlockThatCompressesStartsTheCountAgain() {
        // 0 fails (skip 1), 2 fails (skip 2), 5 compresses, 6 fails: skips 1 again, not 4.
        List<Integer> tried = attempts(12, i -> i == 5);
        assertEquals(List.of(0, 2, 5, 6, 8, 11), tried);
    }
}
