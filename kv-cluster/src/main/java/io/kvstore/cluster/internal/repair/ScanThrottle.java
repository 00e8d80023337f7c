package io.kvstore.cluster.internal.repair;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Paces the scans of one node to a number of bytes per second, all of them together, so that repair
 * reads the disk in the background of client traffic rather than in competition with it. A scanning
 * thread that runs ahead of the pace parks; it may run ahead by at most a tenth of a second of bytes.
 */
public final class ScanThrottle {
    private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private final double nanosPerByte;
    private long paceNanos = System.nanoTime();

    /** {@code bytesPerSecond <= 0}: no limit. */
    public ScanThrottle(long bytesPerSecond) {
        this.nanosPerByte = bytesPerSecond <= 0 ? 0 : 1e9 / bytesPerSecond;
    }

    /** Accounts for {@code bytes} read and parks until the pace allows them. */
    public void acquire(long bytes) {
        if (nanosPerByte == 0) {
            return;
        }
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            paceNanos = Math.max(paceNanos, now - BURST_NANOS) + (long) (bytes * nanosPerByte);
            wait = paceNanos - now;
        }
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
    }
}
