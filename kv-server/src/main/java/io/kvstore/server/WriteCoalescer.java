package io.kvstore.server;

import io.kvstore.core.Entry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Gathers the replica writes one event loop makes to one peer while it works through the connections
 * that were ready together, and sends them as one internode request once that round of work is over
 * (a task queued behind it on the same loop). Under load one message then carries the writes of
 * several client requests, and the cost paid per message (the kernel's loopback and wake-ups, HTTP's
 * framing) is paid once for all of them; at low load a round holds one write, which goes out by
 * itself as before, a task later. Writes made off an event loop are sent at once, alone.
 *
 * <p>A batch holds at most {@link #MAX_BATCH_BYTES} of entries: the write that reaches the limit sends
 * the batch at once. A write larger than half the limit is always sent alone.
 *
 * <p>Not thread-safe by design: each event loop thread has a round of its own.
 */
final class WriteCoalescer {
    /** Most bytes of entries (keys, values and a fixed overhead per entry) one batch carries. */
    static final int MAX_BATCH_BYTES = 64 << 10;
    /** Bytes counted per entry on top of its key and value: its timestamp, expiry and lengths. */
    private static final int ENTRY_OVERHEAD = 24;

    /** How a peer is written: one entry, or several with one outcome each. */
    interface Sender {
        /** Sends {@code entry} alone. */
        Future<Void> one(Entry entry);

        /**
         * Sends {@code entries} as one request; the future completes with one outcome per entry, in
         * order, {@code null} for a stored entry, or fails as a whole when the request did.
         */
        Future<List<Throwable>> batch(List<Entry> entries);
    }

    /** Counts shared by the coalescers of a node, read by its metrics. */
    static final class Counters {
        private final LongAdder batches = new LongAdder();
        private final LongAdder batchedWrites = new LongAdder();

        /** Requests that carried more than one write. */
        long batches() {
            return batches.sum();
        }

        /** Writes sent in those requests. */
        long batchedWrites() {
            return batchedWrites.sum();
        }
    }

    private final Sender sender;
    private final Counters counters;
    private final ThreadLocal<Round> rounds = ThreadLocal.withInitial(Round::new);

    WriteCoalescer(Sender sender, Counters counters) {
        this.sender = sender;
        this.counters = counters;
    }

    /** Writes {@code entry} to the peer, alone or with the other writes of this event loop's round. */
    Future<Void> write(Entry entry) {
        Context context = Vertx.currentContext();
        int bytes = sizeOf(entry);
        if (context == null || !context.isEventLoopContext() || !Context.isOnEventLoopThread()
                || bytes > MAX_BATCH_BYTES / 2) {
            return sender.one(entry);
        }
        Round round = rounds.get();
        Promise<Void> promise = Promise.promise();
        round.entries.add(entry);
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

    private void send(Round round) {
        List<Entry> entries = round.entries;
        List<Promise<Void>> promises = round.promises;
        if (entries.isEmpty()) {
            return;
        }
        round.entries = new ArrayList<>();
        round.promises = new ArrayList<>();
        round.bytes = 0;
        if (entries.size() == 1) {
            sender.one(entries.get(0)).onComplete(promises.get(0));
            return;
        }
        counters.batches.increment();
        counters.batchedWrites.add(entries.size());
        Future<List<Throwable>> sent;
        try {
            sent = sender.batch(entries);
        } catch (RuntimeException e) {
            sent = Future.failedFuture(e);
        }
        sent.onComplete(outcomes -> {
            for (int i = 0; i < promises.size(); i++) {
                Throwable failure = outcomes.failed() ? outcomes.cause() : outcomes.result().get(i);
                if (failure == null) {
                    promises.get(i).complete();
                } else {
                    promises.get(i).fail(failure);
                }
            }
        });
    }

    static int sizeOf(Entry entry) {
        return entry.key().length + (entry.isTombstone() ? 0 : entry.value().length) + ENTRY_OVERHEAD;
    }

    /** The writes an event loop has gathered since its last batch went out. */
    private static final class Round {
        List<Entry> entries = new ArrayList<>();
        List<Promise<Void>> promises = new ArrayList<>();
        int bytes;
        boolean scheduled;
    }
}
