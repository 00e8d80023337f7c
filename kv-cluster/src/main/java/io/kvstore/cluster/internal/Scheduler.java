package io.kvstore.cluster.internal;

/** Runs a task later: a timer in the server, virtual time in a simulation. */
@FunctionalInterface
public interface Scheduler {
    void schedule(long delayMillis, Runnable task);
}
