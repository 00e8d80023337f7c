package io.kvstore.cluster;

import io.kvstore.core.Bytes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BinaryOperator;

/**
 * The bookkeeping of one coordinated request: counts answers from {@code from} replicas, completes
 * {@link #result()} with the merge of the first {@code ack} successful answers, or fails it as soon as
 * {@code ack} successes have become impossible, or when the timeout passes.
 *
 * <p>Two phases. While the requests are being sent, a decision (a local replica may answer in line) is
 * only recorded: the caller's continuation, such as writing the HTTP response, must not run before
 * every replica has been asked. {@link #allSent()} then releases a recorded decision, or tells the
 * caller to watch the round's deadline ({@link RoundDeadlines}) if answers are outstanding. Answers
 * arrive on any thread; a short lock guards the counters, and the result is completed outside it.
 * Answers after the decision are ignored.
 */
final class QuorumRound<T> {
    private final String method;
    private final byte[] key;
    private final int ack;
    private final int from;
    private final BinaryOperator<T> merge;
    private final long timeoutNanos;
    private final CompletableFuture<T> result = new CompletableFuture<>();

    // Guarded by this.
    private boolean sending = true;
    private boolean decided;
    private int successes;
    private T merged;
    /** Replica errors and "node (error)" descriptions; allocated on the first failure only. */
    private List<Throwable> failures;
    private List<String> failedNodes;
    private NotEnoughReplicasException failure;
    /** Its entry in {@link RoundDeadlines}, emptied when the round is decided so the queue lets go of it. */
    private RoundDeadlines.Watch watch;

    /**
     * @param method for error messages: {@code GET}, {@code PUT} or {@code DELETE}
     * @param key    for error messages only
     * @param merge  combines two successful answers; may receive {@code null} answers
     */
    QuorumRound(String method, byte[] key, int ack, int from, BinaryOperator<T> merge, long timeoutNanos) {
        this.method = method;
        this.key = key;
        this.ack = ack;
        this.from = from;
        this.merge = merge;
        this.timeoutNanos = timeoutNanos;
    }

    CompletableFuture<T> result() {
        return result;
    }

    void onSuccess(T answer) {
        synchronized (this) {
            if (decided) {
                return;
            }
            merged = successes == 0 ? answer : merge.apply(merged, answer);
            if (++successes < ack) {
                return;
            }
            decided = true;
            if (sending) {
                return;
            }
        }
        publish();
    }

    void onFailure(String node, Throwable error) {
        synchronized (this) {
            if (decided) {
                return;
            }
            if (failures == null) {
                failures = new ArrayList<>(2);
                failedNodes = new ArrayList<>(2);
            }
            failures.add(error);
            failedNodes.add(node + " (" + error + ")");
            if (from - failures.size() >= ack) {
                return;
            }
            decided = true;
            failure = new NotEnoughReplicasException(operation() + ": needed " + ack + " of " + from
                    + " replicas, got " + successes + "; " + failures.size() + " failed: " + failedNodes,
                    ack, successes, failures, failures.get(0));
            if (sending) {
                return;
            }
        }
        publish();
    }

    /**
     * Every replica has been asked: publishes a decision taken meanwhile and returns false, or returns
     * true when answers are outstanding and the caller must watch this round's deadline.
     */
    boolean allSent() {
        synchronized (this) {
            sending = false;
            if (!decided) {
                return true;
            }
        }
        publish();
        return false;
    }

    /** Registers the deadline's watch, or empties it at once if the round was decided meanwhile. */
    void watchedBy(RoundDeadlines.Watch watch) {
        synchronized (this) {
            if (!decided) {
                this.watch = watch;
                return;
            }
        }
        watch.round = null;
    }

    /** The deadline passed: fails the round unless it was decided meanwhile. */
    void expire() {
        synchronized (this) {
            if (decided) {
                return;
            }
            decided = true;
            int failed = failures == null ? 0 : failures.size();
            failure = new NotEnoughReplicasException(operation() + ": timed out after "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms; needed " + ack + " of " + from
                    + " replicas, got " + successes + ", " + failed + " failed"
                    + (failed == 0 ? "" : ": " + failedNodes), ack, successes,
                    failures == null ? List.of() : failures,
                    new TimeoutException("no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"));
        }
        publish();
    }

    /** Built only for an error message: formatting the key costs more than the rest of a request. */
    private String operation() {
        return method + " key '" + Bytes.toDebugString(key) + "'";
    }

    /** Completes the result with the decision; called once, after {@code decided} was set and sending ended. */
    private void publish() {
        T outcome;
        NotEnoughReplicasException error;
        RoundDeadlines.Watch watched;
        synchronized (this) {
            outcome = merged;
            error = failure;
            watched = watch;
            watch = null;
        }
        if (watched != null) {
            watched.round = null;
        }
        if (error != null) {
            result.completeExceptionally(error);
        } else {
            result.complete(outcome);
        }
    }
}
