package io.kvstore.cluster;

import io.kvstore.core.Entry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;

/**
 * One request fanned out to {@code from} replicas: counts answers as they arrive, on any thread, and
 * completes its future exactly once: with the merged result as soon as {@code ack} replicas succeeded,
 * or with {@link NotEnoughReplicasException} as soon as that has become impossible or time ran out.
 * Reads merge by timestamp: the newest version among the successful answers wins.
 */
final class QuorumCall<T> {
    private final String operation;
    private final int ack;
    private final int from;
    final CompletableFuture<T> result = new CompletableFuture<>();

    private int succeeded;
    private int failed;
    private Entry newest;
    private Throwable lastError;
    private ScheduledFuture<?> timeout;

    QuorumCall(String operation, int ack, int from) {
        this.operation = operation;
        this.ack = ack;
        this.from = from;
    }

    void onAnswer(Object answer, Throwable error) {
        boolean complete;
        boolean fail;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            if (error == null) {
                succeeded++;
                if (answer instanceof Entry) {
                    Entry entry = (Entry) answer;
                    if (newest == null || entry.timestamp() > newest.timestamp()) {
                        newest = entry;
                    }
                }
            } else {
                failed++;
                lastError = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            }
            complete = succeeded >= ack;
            fail = !complete && failed > from - ack;
        }
        if (complete) {
            finish(null);
        } else if (fail) {
            finish(exception());
        }
    }

    void onTimeout() {
        finish(exception());
    }

    synchronized void setTimeout(ScheduledFuture<?> timeout) {
        this.timeout = timeout;
        if (result.isDone()) {
            timeout.cancel(false);
        }
    }

    @SuppressWarnings("unchecked")
    private void finish(NotEnoughReplicasException failure) {
        ScheduledFuture<?> pendingTimeout;
        Entry merged;
        synchronized (this) {
            pendingTimeout = timeout;
            merged = newest;
        }
        boolean won = failure == null ? result.complete((T) merged) : result.completeExceptionally(failure);
        if (won && pendingTimeout != null) {
            pendingTimeout.cancel(false);
        }
    }

    private synchronized NotEnoughReplicasException exception() {
        return new NotEnoughReplicasException(operation, ack, succeeded, failed, lastError);
    }
}
