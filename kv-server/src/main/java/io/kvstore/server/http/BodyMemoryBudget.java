package io.kvstore.server.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies this node may hold at once, over all requests. The in-flight bound alone
 * is no memory bound (4096 requests of 8 MiB are 32 GiB): a body that does not fit the budget is refused
 * with 503 before it is read, so a burst of large uploads costs a retry, never an OutOfMemoryError.
 */
public final class BodyMemoryBudget {
    private final long capacity;
    private final AtomicLong available;
    private final Overload overload;

    /** {@code overload}: counts the bodies refused. */
    public BodyMemoryBudget(long capacity, Overload overload) {
        this.capacity = capacity;
        this.available = new AtomicLong(capacity);
        this.overload = overload;
    }

    /** Takes {@code bytes} from the budget if they are there; {@code false} (and nothing taken) if not. */
    boolean tryReserve(long bytes) {
        while (true) {
            long now = available.get();
            if (now < bytes) {
                overload.refused(Overload.Reason.BODY_MEMORY);
                return false;
            }
            if (available.compareAndSet(now, now - bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        available.addAndGet(bytes);
    }

    long capacity() {
        return capacity;
    }

    public long inUse() {
        return capacity - available.get();
    }
}
