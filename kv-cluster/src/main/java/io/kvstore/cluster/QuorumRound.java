package io.kvstore.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BinaryOperator;

/**
 * The bookkeeping of one coordinated request: counts answers from {@code from} replicas, completes
 * {@link #result()} with the merge of the first {@code ack} successful answers, or fails it as soon as
 * {@code ack} successes have become impossible, or when the deadline passes.
 *
 * <p>Answers arrive on whatever threads the replicas complete on; a short lock guards the counters, and
 * the result is completed outside it. Answers after the decision are ignored.
 */
final class QuorumRound<T> {
    private final String operation;
    private final int ack;
    private final int from;
    private final BinaryOperator<T> merge;
    private final long timeoutNanos;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    /** Armed only if answers are outstanding after sending; completing it cancels the timeout task. */
    private CompletableFuture<Void> deadline;

    private int successes;
    private T merged;
    private final List<Throwable> failures = new ArrayList<>(2);
    private final List<String> failedNodes = new ArrayList<>(2);
    private boolean decided;

    /**
     * @param operation a description for error messages, e.g. {@code "GET key 'k'"}
     * @param merge     combines two successful answers; may receive {@code null} answers
     */
    QuorumRound(String operation, int ack, int from, BinaryOperator<T> merge, long timeoutNanos) {
        this.operation = operation;
        this.ack = ack;
        this.from = from;
        this.merge = merge;
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Starts the timeout clock once the requests are sent, unless their answers are already in (a local
     * replica answering in line costs no timer task). Uses the JDK's shared delay scheduler: no thread
     * per request.
     */
    void armTimeout() {
        CompletableFuture<Void> timer;
        synchronized (this) {
            if (decided) {
                return;
            }
            timer = new CompletableFuture<>();
            deadline = timer;
        }
        timer.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).whenComplete((ignored, error) -> {
            if (error instanceof TimeoutException) {
                onTimeout((TimeoutException) error);
            }
        });
    }

    CompletableFuture<T> result() {
        return result;
    }

    void onSuccess(T answer) {
        T outcome;
        CompletableFuture<Void> timer;
        synchronized (this) {
            if (decided) {
                return;
            }
            merged = successes == 0 ? answer : merge.apply(merged, answer);
            if (++successes < ack) {
                return;
            }
            decided = true;
            outcome = merged;
            timer = deadline;
        }
        disarm(timer);
        result.complete(outcome);
    }

    void onFailure(String node, Throwable error) {
        NotEnoughReplicasException failure;
        CompletableFuture<Void> timer;
        synchronized (this) {
            if (decided) {
                return;
            }
            failures.add(error);
            failedNodes.add(node + " (" + error + ")");
            if (from - failures.size() >= ack) {
                return;
            }
            decided = true;
            failure = new NotEnoughReplicasException(operation + ": needed " + ack + " of " + from
                    + " replicas, got " + successes + "; " + failures.size() + " failed: " + failedNodes,
                    ack, successes, failures, failures.get(0));
            timer = deadline;
        }
        disarm(timer);
        result.completeExceptionally(failure);
    }

    private static void disarm(CompletableFuture<Void> timer) {
        if (timer != null) {
            timer.complete(null);
        }
    }

    private void onTimeout(TimeoutException timeout) {
        NotEnoughReplicasException failure;
        synchronized (this) {
            if (decided) {
                return;
            }
            decided = true;
            failure = new NotEnoughReplicasException(operation + ": timed out after "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms; needed " + ack + " of " + from
                    + " replicas, got " + successes + ", " + failures.size() + " failed"
                    + (failedNodes.isEmpty() ? "" : ": " + failedNodes), ack, successes, failures, timeout);
        }
        result.completeExceptionally(failure);
    }
}
