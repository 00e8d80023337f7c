package io.kvstore.server.http;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The bytes of request bodies this node may hold at once, over all requests. The in-flight bound alone
 * is no memory bound (4096 requests of 8 MiB are 32 GiB): a body that does not fit the budget is refused
 * with 503 before it is read, so a burst of large uploads costs a retry, never an OutOfMemoryError.
 *
 * <p>The budget is not all the heap a body takes: the store holds the values it was given in its
 * memtables, and under G1 an array of a heap region or more (1 MiB regions below a 2 GiB heap) takes
 * whole regions, up to twice its size. So a body is also refused while the heap in use, with twice the
 * body added, would pass {@value #HEAP_SHARE_PERCENT}% of the largest heap: the flush that would free
 * the memtables must still find room to run.
 */
public final class BodyMemoryBudget {
    private final long capacity;
    private final AtomicLong available;
    /** Of the largest heap, the share a body may bring the heap in use to. */
    static final int HEAP_SHARE_PERCENT = 80;
    private final Overload overload;
    private final LongSupplier heapUsed;
    private final long heapLimit;

    /** A budget that also watches this JVM's heap; {@code overload}: counts the bodies refused. */
    public BodyMemoryBudget(long capacity, Overload overload) {
        this(capacity, overload, heapUsed(), Runtime.getRuntime().maxMemory());
    }

    /** {@code heapUsed}: the heap in use now; {@code heapMax}: the largest it may grow to. */
    BodyMemoryBudget(long capacity, Overload overload, LongSupplier heapUsed, long heapMax) {
        this.capacity = capacity;
        this.available = new AtomicLong(capacity);
        this.overload = overload;
        this.heapUsed = heapUsed;
        this.heapLimit = heapMax / 100 * HEAP_SHARE_PERCENT;
    }

    private static LongSupplier heapUsed() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        return () -> memory.getHeapMemoryUsage().getUsed();
    }

    /** Takes {@code bytes} from the budget if they are there; {@code false} (and nothing taken) if not. */
    boolean tryReserve(long bytes) {
        if (bytes > 0 && heapUsed.getAsLong() + 2 * bytes > heapLimit) {
            overload.refused(Overload.Reason.BODY_MEMORY);
            return false;
        }
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
