package io.kvstore.core.internal.lsm;

import io.kvstore.core.BackgroundPriority;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread that runs a store's flushes or its compactions in order, at the CPU priority of
 * {@link io.kvstore.core.DaoOptions#backgroundPriority()}.
 */
final class BackgroundThread {
    private final ExecutorService executor;
    private final String name;

    BackgroundThread(String name, BackgroundPriority priority) {
        this.name = name;
        this.executor = Executors.newSingleThreadExecutor(priority.threadFactory(name));
    }

    /** Queues {@code task}; false if the thread is shutting down. */
    boolean execute(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Runs {@code task} after everything queued before it and waits for it; its failure is rethrown. */
    <T> T call(Callable<T> task, String what) throws IOException {
        try {
            return executor.submit(task).get();
        } catch (RejectedExecutionException e) {
            throw new IOException(what + " refused: " + name + " is shutting down", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + what);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException) {
                throw (IOException) cause;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IOException(what + " failed", cause);
        }
    }

    /** Takes no more tasks, and waits up to a minute for the queued ones. */
    void shutdownAndWait() {
        executor.shutdown();
        try {
            executor.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Takes no more tasks; queued ones still run. */
    void shutdown() {
        executor.shutdown();
    }
}
