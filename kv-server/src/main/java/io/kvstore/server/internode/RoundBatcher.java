package io.kvstore.server.internode;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToIntFunction;

/**
 * Gathers the calls one event loop makes to one peer while it works through the connections that
 * were ready together, and sends them as one internode request once that round of work is over (a
 * task queued behind it on the same loop). Under load one message then carries the calls of several
 * client requests, and the cost paid per message (the kernel's loopback and wake-ups, HTTP's framing)
 * is paid once for all of them; at low load a round holds one call, which goes out by itself as
 * before, a task later. Calls made off an event loop are sent at once, alone.
 *
 * <p>A batch holds at most {@link #MAX_BATCH_BYTES} of calls: the call that reaches the limit sends
 * the batch at once. A call larger than half the limit is always sent alone.
 *
 * <p>Each event loop thread has a round of its own, touched by that thread only.
 *
 * @param <T> what a call sends
 * @param <R> what it answers
 */
public final class RoundBatcher<T, R> {
    /** Most bytes of calls (as {@code sizeOf} counts them) one batch carries. */
    static final int MAX_BATCH_BYTES = 64 << 10;

    /** How a peer is called: once, or several times in one request with one outcome each. */
    interface Sender<T, R> {
        /** Sends {@code call} alone. */
        Future<R> one(T call);

        /**
         * Sends {@code calls} as one request; the future completes with one outcome per call, in
         * order, or fails as a whole when the request did.
         */
        Future<List<AsyncResult<R>>> batch(List<T> calls);
    }

    /** Counts shared by the batchers of a node for one kind of call, read by its metrics. */
    public static final class Counters {
        private final LongAdder batches = new LongAdder();
        private final LongAdder batchedCalls = new LongAdder();

        /** Requests that carried more than one call. */
        public long batches() {
            return batches.sum();
        }

        /** Calls sent in those requests. */
        public long batchedCalls() {
            return batchedCalls.sum();
        }
    }

    private final Sender<T, R> sender;
    private final ToIntFunction<T> sizeOf;
    private final Counters counters;
    private final ThreadLocal<Round<T, R>> rounds = ThreadLocal.withInitial(Round::new);

    /** {@code sizeOf}: the bytes a call adds to a batch's body. */
    RoundBatcher(Sender<T, R> sender, ToIntFunction<T> sizeOf, Counters counters) {
        this.sender = sender;
        this.sizeOf = sizeOf;
        this.counters = counters;
    }

    /** Sends {@code call} to the peer, alone or with the other calls of this event loop's round. */
    Future<R> submit(T call) {
        Context context = Vertx.currentContext();
        int bytes = sizeOf.applyAsInt(call);
        if (context == null || !context.isEventLoopContext() || !Context.isOnEventLoopThread()
                || bytes > MAX_BATCH_BYTES / 2) {
            return sender.one(call);
        }
        Round<T, R> round = rounds.get();
        Promise<R> promise = Promise.promise();
        round.calls.add(call);
        round.promises.add(promise);
        round.bytes += bytes;
        if (round.bytes >= MAX_BATCH_BYTES) {
            send(round);
        } else if (!round.scheduled) {
            round.scheduled = true;
            context.runOnContext(end -> {
                round.scheduled = false;
                send(round);
            });
        }
        return promise.future();
    }

    private void send(Round<T, R> round) {
        List<T> calls = round.calls;
        List<Promise<R>> promises = round.promises;
        if (calls.isEmpty()) {
            return;
        }
        round.calls = new ArrayList<>();
        round.promises = new ArrayList<>();
        round.bytes = 0;
        if (calls.size() == 1) {
            sender.one(calls.get(0)).onComplete(promises.get(0));
            return;
        }
        counters.batches.increment();
        counters.batchedCalls.add(calls.size());
        Future<List<AsyncResult<R>>> sent;
        try {
            sent = sender.batch(calls);
        } catch (RuntimeException e) {
            sent = Future.failedFuture(e);
        }
        sent.onComplete(outcomes -> {
            for (int i = 0; i < promises.size(); i++) {
                promises.get(i).handle(outcomes.failed() ? Future.failedFuture(outcomes.cause()) : outcomes.result().get(i));
            }
        });
    }

    /** The calls an event loop has gathered since its last batch went out. */
    private static final class Round<T, R> {
        List<T> calls = new ArrayList<>();
        List<Promise<R>> promises = new ArrayList<>();
        int bytes;
        boolean scheduled;
    }
}
