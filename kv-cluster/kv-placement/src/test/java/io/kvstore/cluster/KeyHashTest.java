package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyHashTest {

    /** Expected values from the reference implementation: {@code xxhsum -H64} (xxHash 0.8.1). */
    @ParameterizedTest
    @CsvSource({
            "'', ef46db3751d8e999",
            "a, d24ec4f1a98c6e5b",
            "abc, 44bc2cf5ad770999",
            "Nobody inspects the spammish repetition, fbcea83c8a378bf1",
            "0123456789abcdef0123456789abcdef0123456789, a76190c3acf08a1c",
    })
    void matchesTheReferenceXxh64OnText(String text, String expectedHex) {
        assertEquals(Long.parseUnsignedLong(expectedHex, 16), KeyHash.hash64(text.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Every code path (32-byte stripes, 8-byte, 4-byte and 1-byte tails) over bytes {@code (31 i + 7) mod 256},
     * checked against {@code xxhsum -H64}.
     */
    @ParameterizedTest
    @CsvSource({
            "1, a96c7f0ce858bbb7", "3, 56e6957632a487f9", "4, c60d15b1e3ff8f04", "7, afbefc3d6c6f9a8e",
            "8, 3da5c7aa269683e0", "9, 4b17a9ba9e215c09", "12, 8fe8ab1c1fd0666e", "15, ae2a37eb9357caa7",
            "31, 4a74f3a1a39ad4a1", "32, 8d57d6a4671cc43d", "33, 62c9fd21ed857664", "63, 5c320a0d2707057f",
            "64, 7bbabbc45729d17e", "65, f3980c34bae65dc1", "100, efa0ad2d3e70c151",
    })
    void matchesTheReferenceXxh64OnEveryLengthClass(int length, String expectedHex) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (31 * i + 7);
        }
        assertEquals(Long.parseUnsignedLong(expectedHex, 16), KeyHash.hash64(bytes));
    }

    @Test
    void aSeedChangesTheHash() {
        byte[] key = "key".getBytes(StandardCharsets.UTF_8);
        assertEquals(KeyHash.hash64(key), KeyHash.hash64(key, 0));
        assertNotEquals(KeyHash.hash64(key, 0), KeyHash.hash64(key, 1));
    }

    @Test
    void flippingOneInputBitFlipsAboutHalfTheOutputBits() {
        SplittableRandom random = new SplittableRandom(Seeds.seed("avalanche"));
        long flipped = 0;
        int trials = 0;
        byte[] key = new byte[16];
        for (int t = 0; t < 2_000; t++) {
            random.nextBytes(key);
            long base = KeyHash.hash64(key);
            int bit = random.nextInt(key.length * 8);
            key[bit / 8] ^= (byte) (1 << (bit % 8));
            flipped += Long.bitCount(base ^ KeyHash.hash64(key));
            trials++;
        }
        double meanFlipped = (double) flipped / trials;
        assertTrue(meanFlipped > 31 && meanFlipped < 33, () -> "mean flipped bits " + meanFlipped);
    }

    @Test
    void mixIsABijectionOnSmallInputs() {
        Set<Long> seen = new HashSet<>();
        for (long i = 0; i < 100_000; i++) {
            assertTrue(seen.add(KeyHash.mix(i)), "collision at " + i);
        }
    }

    @Test
    void reduceMapsUniformlyIntoTheBound() {
        int bound = 7;
        long[] counts = new long[bound];
        SplittableRandom random = new SplittableRandom(Seeds.seed("reduce"));
        for (int i = 0; i < 700_000; i++) {
            int r = KeyHash.reduce(random.nextLong(), bound);
            assertTrue(r >= 0 && r < bound);
            counts[r]++;
        }
        assertTrue(PartitionerContractTest.peakToMean(counts) < 1.01);
        assertEquals(bound - 1, KeyHash.reduce(-1L, bound));
        assertEquals(0, KeyHash.reduce(0L, bound));
    }
}
