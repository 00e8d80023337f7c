package io.kvstore.core.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class ThreadPriorityTest {

    @Test
    @EnabledOnOs(OS.LINUX)
    void lowersTheCallingThreadOnly() throws Exception {
        int before = ProcThreads.niceOfCurrentThread();
        int asked = Math.min(ThreadPriority.MAX_NICE, before + 5);
        int[] seen = onNewThread(asked);
        assertEquals(1, seen[0], "setpriority through JNA");
        assertEquals(asked, seen[1], "the new thread's nice value");
        assertEquals(before, ProcThreads.niceOfCurrentThread(), "the caller's nice value");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void neverRaisesThePriorityOfAThreadAlreadyLower() throws Exception {
        int[] result = onNewThread(ThreadPriority.MAX_NICE, 3);
        assertEquals(1, result[0]);
        assertEquals(ThreadPriority.MAX_NICE, result[1], "asking for 3 after 19 keeps 19");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void movesTheCallingThreadOnlyToSchedIdle() throws Exception {
        int before = ProcThreads.policyOfCurrentThread();
        CompletableFuture<int[]> seen = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            boolean first = ThreadPriority.idleCurrentThread();
            boolean again = ThreadPriority.idleCurrentThread(); // already there: still true
            seen.complete(new int[] {first && again ? 1 : 0, ProcThreads.policyOfCurrentThread()});
        });
        thread.start();
        int[] result = seen.get(10, TimeUnit.SECONDS);
        assertEquals(1, result[0], "sched_setscheduler through JNA");
        assertEquals(ProcThreads.SCHED_IDLE, result[1], "the new thread's policy");
        assertEquals(before, ProcThreads.policyOfCurrentThread(), "the caller's policy");
    }

    @Test
    void refusesNiceValuesOutsideZeroToNineteen() {
        assertThrows(IllegalArgumentException.class, () -> ThreadPriority.lowerCurrentThread(-1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ThreadPriority.lowerCurrentThread(20));
        assertTrue(e.getMessage().contains("got 20"), e.getMessage());
    }

    /** {last call succeeded ? 1 : 0, nice value after} of a fresh thread that asks for each of {@code nices} in turn. */
    private static int[] onNewThread(int... nices) throws Exception {
        CompletableFuture<int[]> seen = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            boolean ok = false;
            for (int nice : nices) {
                ok = ThreadPriority.lowerCurrentThread(nice);
            }
            seen.complete(new int[] {ok ? 1 : 0, ProcThreads.niceOfCurrentThread()});
        });
        thread.start();
        return seen.get(10, TimeUnit.SECONDS);
    }
}
