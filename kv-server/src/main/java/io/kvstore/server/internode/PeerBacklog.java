package io.kvstore.server.internode;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The calls sent to one peer and not yet answered, oldest first. A peer answers the requests of one
 * pipelined connection in order, so a call sent behind one outstanding for long waits for it, where the
 * peer cannot see it to refuse it; once the oldest has waited past a limit, new calls fail at once as
 * overloaded rather than join the queue to time out. Thread-safe; a call costs one enqueue.
 */
final class PeerBacklog {
    private final long limitNanos;
    private final ConcurrentLinkedQueue<Call> outstanding = new ConcurrentLinkedQueue<>();

    /** One call: when it was sent, and whether it was answered. */
    static final class Call {
        final long sentAt;
        volatile boolean answered;

        Call(long sentAt) {
            this.sentAt = sentAt;
        }
    }

    PeerBacklog(long limitNanos) {
        this.limitNanos = limitNanos;
    }

    /** How long the oldest unanswered call has waited if that is past the limit, else 0. */
    long overdueNanos() {
        Call head;
        while ((head = outstanding.peek()) != null && head.answered) {
            outstanding.poll();
        }
        if (head == null) {
            return 0;
        }
        long waited = System.nanoTime() - head.sentAt;
        return waited > limitNanos ? waited : 0;
    }

    /** A call is sent now; mark the returned one answered when it is. */
    Call sent() {
        Call call = new Call(System.nanoTime());
        outstanding.add(call);
        return call;
    }
}
