package io.kvstore.core.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class XxHash64Test {

    /** Reference values from the xxHash project's own tool: {@code printf '%s' "$s" | xxhsum -H64}. */
    @Test
    void matchesTheReferenceXxh64() {
        assertEquals(0xEF46DB3751D8E999L, hash(""));
        assertEquals(0xD24EC4F1A98C6E5BL, hash("a"));
        assertEquals(0x44BC2CF5AD770999L, hash("abc"));
        // 39 bytes: one 32-byte stripe, a 4-byte lane, 3 single bytes.
        assertEquals(0xFBCEA83C8A378BF1L, hash("Nobody inspects the spammish repetition"));
        // 43 bytes: one stripe, an 8-byte lane, 3 single bytes.
        assertEquals(0xFD0311E92A0651D5L, hash("0123456789abcdef0123456789abcdefXYZ12345678"));
    }

    @Test
    void aRangeHashesAsACopyOfItDoes() {
        long seed = System.nanoTime();
        System.out.println("XxHash64Test seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        byte[] bytes = new byte[200];
        random.nextBytes(bytes);
        for (int length = 0; length <= 100; length++) {
            int offset = random.nextInt(bytes.length - length + 1);
            assertEquals(XxHash64.hash(Arrays.copyOfRange(bytes, offset, offset + length)),
                    XxHash64.hash(bytes, offset, length), "offset " + offset + ", length " + length);
        }
        assertThrows(IndexOutOfBoundsException.class, () -> XxHash64.hash(bytes, 150, 51));
        assertThrows(IndexOutOfBoundsException.class, () -> XxHash64.hash(bytes, -1, 4));
    }

    private static long hash(String s) {
        return XxHash64.xxh64(s.getBytes(StandardCharsets.UTF_8), 0);
    }
}
