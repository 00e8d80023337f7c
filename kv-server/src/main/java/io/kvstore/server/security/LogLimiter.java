package io.kvstore.server.security;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Lets one message through per {@link #INTERVAL_NANOS}, for events that may repeat by thousands. */
public final class LogLimiter {
    public static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);
    private final AtomicLong next = new AtomicLong(System.nanoTime());

    /** Whether to log now. */
    boolean permit() {
        long now = System.nanoTime();
        long due = next.get();
        return now - due >= 0 && next.compareAndSet(due, now + INTERVAL_NANOS);
    }
}
