package io.kvstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.internal.util.ProcThreads;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

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

    @Test
    @EnabledOnOs(OS.LINUX)
    void threadsOfItsFactoryRunAtItsPriorityAndLeaveTheCallersAlone() throws Exception {
        int before = ProcThreads.niceOfCurrentThread();
        int asked = Math.min(19, before + 7);
        CompletableFuture<Integer> seen = new CompletableFuture<>();
        Thread thread = BackgroundPriority.nice(asked).threadFactory("kv-test-background")
                .newThread(() -> seen.complete(ProcThreads.niceOfCurrentThread()));
        assertTrue(thread.isDaemon(), "a background thread must not keep the JVM alive");
        assertEquals("kv-test-background", thread.getName());
        thread.start();
        assertEquals(asked, seen.get(10, TimeUnit.SECONDS), "the new thread's nice value");
        assertEquals(before, ProcThreads.niceOfCurrentThread(), "the caller's nice value");
    }
}
