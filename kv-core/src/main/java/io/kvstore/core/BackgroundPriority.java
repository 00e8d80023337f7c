package io.kvstore.core;

import io.kvstore.core.internal.util.ThreadPriority;
import java.util.concurrent.ThreadFactory;

/**
 * The CPU priority of background threads (a store's flushes and compactions, a node's streams, cleanups
 * and repair scans), on Linux with JNA on the class path: either a nice value, or {@link #IDLE}, the
 * kernel's SCHED_IDLE policy (RocksDB's {@code CpuPriority::kIdle}). A request thread that wakes always
 * preempts a SCHED_IDLE thread at once, where a nice-19 one may keep the core for the rest of its slice,
 * and the scheduler places a waking thread on a core that runs only SCHED_IDLE threads as on an idle
 * one, where it counts a core busy with a nice-19 thread as busy. A SCHED_IDLE thread still gets a
 * small share of a busy core (less than a nice-19 one), so it is slowed, never stopped: writers stall, and stop competing, when it falls behind. Elsewhere the threads
 * keep the normal priority.
 */
public final class BackgroundPriority {
    /** The SCHED_IDLE policy. */
    public static final BackgroundPriority IDLE = new BackgroundPriority(-1);
    /** The normal priority: nice 0. */
    public static final BackgroundPriority NORMAL = new BackgroundPriority(0);

    private final int nice; // -1 for IDLE

    private BackgroundPriority(int nice) {
        this.nice = nice;
    }

    /** Nice value {@code nice}, 0 (normal) to {@link ThreadPriority#MAX_NICE}. */
    public static BackgroundPriority nice(int nice) {
        if (nice < 0 || nice > ThreadPriority.MAX_NICE) {
            throw new IllegalArgumentException("nice must be in [0, " + ThreadPriority.MAX_NICE + "], got " + nice);
        }
        return nice == 0 ? NORMAL : new BackgroundPriority(nice);
    }

    /** Parses {@code idle} or a nice value 0 to 19, as {@link #toString()} writes them. */
    public static BackgroundPriority parse(String text) {
        if (text.equals("idle")) {
            return IDLE;
        }
        try {
            return nice(Integer.parseInt(text));
        } catch (IllegalArgumentException e) { // not a number, or out of range
            throw new IllegalArgumentException("background priority must be idle or a nice value 0-"
                    + ThreadPriority.MAX_NICE + ", got '" + text + "'");
        }
    }

    public boolean isIdle() {
        return nice < 0;
    }

    /** Lowers the calling thread to this priority (never raises it); false if it could not. */
    public boolean applyToCurrentThread() {
        if (isIdle()) {
            return ThreadPriority.idleCurrentThread();
        }
        return nice == 0 || ThreadPriority.lowerCurrentThread(nice);
    }

    /**
     * Makes daemon threads named {@code name} that lower themselves to this priority when they start:
     * for background work outside the store too (streaming keys to a joining node, cleanups, repair
     * scans), so that it takes the cores requests leave idle instead of queueing them.
     */
    public ThreadFactory threadFactory(String name) {
        return runnable -> {
            Thread thread = new Thread(() -> {
                applyToCurrentThread();
                runnable.run();
            }, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackgroundPriority && ((BackgroundPriority) o).nice == nice;
    }

    @Override
    public int hashCode() {
        return nice;
    }

    /** {@code idle} or the nice value. */
    @Override
    public String toString() {
        return isIdle() ? "idle" : Integer.toString(nice);
    }
}
