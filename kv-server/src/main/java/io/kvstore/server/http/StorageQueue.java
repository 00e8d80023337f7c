package io.kvstore.server.http;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The storage threads' executor with its queue's waits measured and bounded: each task reports how long
 * it waited to {@link Overload}, and a task offered while the oldest queued one has waited longer than
 * the target is rejected ({@link RejectedExecutionException}, answered 503 + Retry-After), so that the
 * queue never grows to hold requests past their replica timeout.
 */
public final class StorageQueue implements Executor {
    private final ThreadPoolExecutor pool;
    private final Overload overload;

    /** {@code threads} daemon threads named {@code kv-storage}. */
    public StorageQueue(int threads, Overload overload) {
        this.overload = overload;
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "kv-storage");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void execute(Runnable task) {
        Runnable oldest = pool.getQueue().peek();
        long now = System.nanoTime();
        long waited = oldest instanceof Timed timed ? now - timed.queuedAt : 0;
        overload.waited(waited);
        if (waited > overload.targetNanos()) {
            overload.refused(Overload.Reason.STORAGE_QUEUE);
            throw new RejectedExecutionException("the storage queue is overloaded: its oldest task waited "
                    + TimeUnit.NANOSECONDS.toMillis(waited) + " ms; retry later");
        }
        pool.execute(new Timed(task, now));
    }

    /** Stops taking tasks; those queued still run. */
    public void shutdown() {
        pool.shutdown();
    }

    /** Waits for the tasks queued at {@link #shutdown()} to end; false if they did not in time. */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return pool.awaitTermination(timeout, unit);
    }

    /** A task and when it was queued. */
    private final class Timed implements Runnable {
        final Runnable task;
        final long queuedAt;

        Timed(Runnable task, long queuedAt) {
            this.task = task;
            this.queuedAt = queuedAt;
        }

        @Override
        public void run() {
            overload.waited(System.nanoTime() - queuedAt);
            task.run();
        }
    }
}
