package io.kvstore.server.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class KeyLimitTest {
    private final KeyLimit keys = new KeyLimit(4);

    @Test
    void oneToTheLimitIsTakenAndEverythingElseRefusedByName() {
        byte[] four = {1, 2, 3, 4};
        assertSame(four, keys.check(four, "key"));
        assertNull(keys.refusal(new byte[1], "id"));
        assertEquals("empty id", keys.refusal(new byte[0], "id"));
        assertEquals("key of 5 bytes exceeds the limit of 4", keys.refusal(new byte[5], "key"));
        assertEquals("start of 9 bytes exceeds the limit of 4",
                assertThrows(IllegalArgumentException.class, () -> keys.check(new byte[9], "start")).getMessage());
        assertEquals("empty key", KeyLimit.refusal(0, 4, "key"));
        assertEquals("empty key", KeyLimit.refusal(-1, 4, "key"), "a negative length read off a body");
        assertThrows(IllegalArgumentException.class, () -> new KeyLimit(0));
    }
}
