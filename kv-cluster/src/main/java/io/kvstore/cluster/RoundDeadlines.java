package io.kvstore.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Times out the undecided rounds of one coordinator, cheaply: every round has the same timeout, so
 * rounds queued in the order they start are also in the order of their deadlines. A sweep, run every
 * {@code timeout / 20} (at least 1 ms, at most 20 ms) while rounds wait, drops the decided rounds at the
 * head and fails the expired ones. The queue holds a small {@link Watch} per round, which the round
 * empties when it is decided: behind one round that waits for its timeout, the thousands decided
 * after it are not kept alive with their answers.
 *
 * <p>Why not a timer per round: {@code CompletableFuture.orTimeout} schedules and cancels a task on the
 * JDK's shared scheduler for every request, taking its lock twice; a profile of a single node serving
 * GETs put 13% of the node's CPU samples there (the scheduler 9%, its thread 4%), for a timer that
 * almost never fires. Here a round costs one
 * lock-free enqueue. The price is precision: a round fails up to one sweep period after its deadline.
 *
 * <p>Sweeps run on the JDK's shared delay scheduler thread (no thread of its own). Thread-safe.
 */
final class RoundDeadlines {
    private final long timeoutNanos;
    private final Executor sweepLater;
    private final ConcurrentLinkedQueue<Watch> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();

    RoundDeadlines(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
        long periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
                Math.min(TimeUnit.MILLISECONDS.toNanos(20), timeoutNanos / 20));
        this.sweepLater = CompletableFuture.delayedExecutor(periodNanos, TimeUnit.NANOSECONDS, Runnable::run);
    }

    /** One queued deadline; {@code round} is null once the round is decided. */
    static final class Watch {
        final long deadlineNanos;
        volatile QuorumRound<?> round;

        Watch(long deadlineNanos, QuorumRound<?> round) {
            this.deadlineNanos = deadlineNanos;
            this.round = round;
        }
    }

    /** Watches {@code round}, which was started just now and was not decided when all was sent. */
    void watch(QuorumRound<?> round) {
        Watch watch = new Watch(System.nanoTime() + timeoutNanos, round);
        round.watchedBy(watch);
        waiting.add(watch);
        scheduleSweep();
    }

    /** Watches queued, emptied or not: for tests. */
    int size() {
        return waiting.size();
    }

    /** Rounds the queue still holds, that is undecided ones: for tests. */
    int roundsHeld() {
        int held = 0;
        for (Watch watch : waiting) {
            held += watch.round == null ? 0 : 1;
        }
        return held;
    }

    private void scheduleSweep() {
        if (sweepScheduled.compareAndSet(false, true)) {
            sweepLater.execute(this::sweep);
        }
    }

    /** One at a time, so the round it peeks at is the round it polls. */
    private synchronized void sweep() {
        long now = System.nanoTime();
        List<QuorumRound<?>> expired = null;
        Watch head;
        while ((head = waiting.peek()) != null && (head.round == null || head.deadlineNanos - now <= 0)) {
            waiting.poll();
            QuorumRound<?> round = head.round;
            if (round != null) {
                if (expired == null) {
                    expired = new ArrayList<>();
                }
                expired.add(round);
            }
        }
        // Failed once the queue is trimmed: their callers' continuations run on this thread.
        if (expired != null) {
            expired.forEach(QuorumRound::expire);
        }
        sweepScheduled.set(false);
        // A round added after the loop looked may have found a sweep still scheduled: look again.
        if (!waiting.isEmpty()) {
            scheduleSweep();
        }
    }
}
