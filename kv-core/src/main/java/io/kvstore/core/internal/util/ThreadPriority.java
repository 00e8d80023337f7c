package io.kvstore.core.internal.util;

import com.sun.jna.Native;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the CPU priority of the calling thread (a higher nice value, or the SCHED_IDLE policy), for
 * background work (flushes, compactions) that should use the cores the threads serving requests leave
 * idle, as RocksDB's {@code Env::LowerThreadPoolCPUPriority} does. Linux keeps a nice value per
 * thread, so {@code setpriority(PRIO_PROCESS, 0, nice)} changes the caller only; raising one's own nice
 * value needs no privilege. Calls the C library through JNA, an optional dependency of kv-core (kv-server
 * brings it): without JNA, or on another system, nothing changes and the first call logs why.
 */
public final class ThreadPriority {
    /** The largest nice value Linux allows: the lowest priority short of SCHED_IDLE. */
    public static final int MAX_NICE = 19;
    private static final Logger LOG = LoggerFactory.getLogger(ThreadPriority.class);
    private static final int PRIO_PROCESS = 0;
    private static final int SCHED_IDLE = 5;
    private static volatile boolean warned;

    private ThreadPriority() {
    }

    /**
     * Raises the calling thread's nice value to {@code nice} (0 to {@link #MAX_NICE}) unless it is
     * already that high (a process started with {@code nice -n 15} keeps its background threads at
     * 15, below its request threads, rather than above them); returns whether the thread now runs at
     * {@code nice} or lower priority. Never throws for a failed call: a store runs the same, only with
     * its background work competing as an equal with the rest.
     */
    public static boolean lowerCurrentThread(int nice) {
        if (nice < 0 || nice > MAX_NICE) {
            throw new IllegalArgumentException("nice must be in [0, " + MAX_NICE + "], got " + nice);
        }
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            warnOnce("not Linux");
            return false;
        }
        try {
            Native.setLastError(0);
            int current = LibC.getpriority(PRIO_PROCESS, 0); // -1 is a nice value too: errno tells
            if (Native.getLastError() == 0 && current >= nice) {
                return true;
            }
            if (LibC.setpriority(PRIO_PROCESS, 0, nice) == 0) {
                return true;
            }
            warnOnce("setpriority failed with errno " + Native.getLastError());
        } catch (LinkageError e) { // JNA missing, or its native part cannot load here
            warnOnce(e.toString());
        }
        return false;
    }

    /**
     * Moves the calling thread to the SCHED_IDLE policy (Linux schedules it only on cores no other
     * thread wants, and preempts it at once when one does; unprivileged threads may move to it);
     * returns whether the thread now runs under it. Never throws for a failed call.
     */
    public static boolean idleCurrentThread() {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            warnOnce("not Linux");
            return false;
        }
        try {
            if (LibC.sched_getscheduler(0) == SCHED_IDLE) {
                return true;
            }
            if (LibC.sched_setscheduler(0, SCHED_IDLE, new int[] {0}) == 0) { // pid 0: the calling thread
                return true;
            }
            warnOnce("sched_setscheduler failed with errno " + Native.getLastError());
        } catch (LinkageError e) {
            warnOnce(e.toString());
        }
        return false;
    }

    private static void warnOnce(String reason) {
        if (!warned) {
            warned = true;
            LOG.info("Background threads keep the normal CPU priority: {}", reason);
        }
    }
}
