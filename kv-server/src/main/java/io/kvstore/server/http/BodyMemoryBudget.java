package io.kvstore.server.http;

import com.sun.management.HotSpotDiagnosticMXBean;
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
 * whole regions, up to twice its size. So a body of that size (half a region, G1's humongous objects)
 * is also refused while the heap in use, with twice the body added, would pass
 * {@value #HEAP_SHARE_PERCENT}% of the largest heap: the flush that would free the memtables must still
 * find room to run. Smaller bodies are left to the byte budget: the heap in use counts the garbage of
 * the young generation until its next collection, which under a steady write load passes that share
 * before every collection, and a check of it refused small writes that the collection would have made
 * room for.
 */
public final class BodyMemoryBudget {
    private final long capacity;
    private final AtomicLong available;
    /** Of the largest heap, the share a body may bring the heap in use to. */
    static final int HEAP_SHARE_PERCENT = 80;
    private final Overload overload;
    /** Used where the collector's region size is unknown: half of G1's smallest region. */
    static final long DEFAULT_LARGE_BODY_BYTES = 512 << 10;
    private final LongSupplier heapUsed;
    private final long heapLimit;
    private final long largeBodyBytes;

    /** A budget that also watches this JVM's heap; {@code overload}: counts the bodies refused. */
    public BodyMemoryBudget(long capacity, Overload overload) {
        this(capacity, overload, heapUsed(), Runtime.getRuntime().maxMemory(), largeBodyBytes());
    }

    /**
     * {@code heapUsed}: the heap in use now; {@code heapMax}: the largest it may grow to;
     * {@code largeBodyBytes}: the size from which a body is checked against the heap too.
     */
    BodyMemoryBudget(long capacity, Overload overload, LongSupplier heapUsed, long heapMax, long largeBodyBytes) {
        this.capacity = capacity;
        this.available = new AtomicLong(capacity);
        this.overload = overload;
        this.heapUsed = heapUsed;
        this.heapLimit = heapMax / 100 * HEAP_SHARE_PERCENT;
        this.largeBodyBytes = largeBodyBytes;
    }

    /** Half of this JVM's G1 region: the size from which G1 gives an array regions of its own. */
    private static long largeBodyBytes() {
        try {
            HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            long region = Long.parseLong(hotSpot.getVMOption("G1HeapRegionSize").getValue());
            return region > 0 ? region / 2 : DEFAULT_LARGE_BODY_BYTES;
        } catch (RuntimeException e) { // not HotSpot, or no such option
            return DEFAULT_LARGE_BODY_BYTES;
        }
    }

    private static LongSupplier heapUsed() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        return () -> memory.getHeapMemoryUsage().getUsed();
    }

    /** {@link #tryReserve(long, long)} for an array of {@code bytes}. */
    boolean tryReserve(long bytes) {
        return tryReserve(bytes, bytes);
    }

    /**
     * Takes {@code bytes} from the budget, for an array of {@code arrayBytes} about to be allocated, if
     * they are there (and, for a large array, the heap has room for it); {@code false} (and nothing
     * taken) if not.
     */
    boolean tryReserve(long bytes, long arrayBytes) {
        if (bytes > 0 && arrayBytes >= largeBodyBytes && heapUsed.getAsLong() + 2 * arrayBytes > heapLimit) {
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
