package io.kvstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BackgroundPriorityTest {
    @Test
    void parsesWhatItWrites() {
        for (BackgroundPriority p : new BackgroundPriority[] {BackgroundPriority.IDLE, BackgroundPriority.NORMAL,
                BackgroundPriority.nice(1), BackgroundPriority.nice(19)}) {
            assertEquals(p, BackgroundPriority.parse(p.toString()));
        }
        assertTrue(BackgroundPriority.parse("idle").isIdle());
        assertFalse(BackgroundPriority.parse("19").isIdle());
        assertEquals(BackgroundPriority.NORMAL, BackgroundPriority.nice(0));
    }

    @Test
    void refusesAnythingElseNamingWhatItGot() {
        for (String bad : new String[] {"20", "-1", "", "IDLE", "nice", "19 ", "0x13", "99999999999"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BackgroundPriority.parse(bad));
            assertTrue(e.getMessage().contains("got '" + bad + "'"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> BackgroundPriority.nice(20));
    }
}
