package io.kvstore.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Write timestamps for {@link KvStore}: unique, strictly increasing, close to wall-clock time in
 * microseconds, and still increasing after a reopen even if the wall clock went backwards meanwhile.
 *
 * <p>How: the clock hands out timestamps below a <em>lease</em> bound that is first made durable
 * in the file {@value #FILE_NAME} of the data directory, an {@link AtomicFile}. When a timestamp
 * would reach the bound, a new bound {@code leaseMicros} further is persisted before it is issued. On
 * open the clock starts at the persisted bound (or the wall clock, if later), which is above every
 * timestamp issued before. Cost: one small synced file write per lease period (10 s by default), none
 * per write.
 */
final class PersistentClock {
    /** The lease file in the data directory. */
    static final String FILE_NAME = "KVSTORE-CLOCK";
    static final long DEFAULT_LEASE_MICROS = 10_000_000L;

    private final AtomicFile file;
    private final long leaseMicros;
    private final AtomicLong last;
    private volatile long leaseEnd;

    private PersistentClock(AtomicFile file, long leaseMicros, long start) {
        this.file = file;
        this.leaseMicros = leaseMicros;
        this.last = new AtomicLong(start - 1);
        this.leaseEnd = start;
    }

    /** Opens the clock of {@code directory} on the real file system, persisting a first lease. */
    static PersistentClock open(Path directory, long leaseMicros) throws IOException {
        return open(Storage.local(), directory, leaseMicros);
    }

    /** Opens the clock of {@code directory}, persisting a first lease. */
    static PersistentClock open(Storage storage, Path directory, long leaseMicros) throws IOException {
        if (leaseMicros <= 0) {
            throw new IllegalArgumentException("leaseMicros must be > 0, got " + leaseMicros);
        }
        AtomicFile file = new AtomicFile(storage, directory.resolve(FILE_NAME));
        long start = nowMicros();
        byte[] saved = file.read();
        if (saved != null) {
            start = Math.max(start, parseLease(file, saved));
        }
        PersistentClock clock = new PersistentClock(file, leaseMicros, start);
        clock.extendLease(start);
        return clock;
    }

    /** The next timestamp: greater than every one issued before, in this process or an earlier one. */
    long next() {
        while (true) {
            long previous = last.get();
            long candidate = Math.max(previous + 1, nowMicros());
            if (candidate >= leaseEnd) {
                extendLeaseUnchecked(candidate);
            }
            if (last.compareAndSet(previous, candidate)) {
                return candidate;
            }
        }
    }

    private void extendLeaseUnchecked(long needed) {
        try {
            extendLease(needed);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot persist the timestamp lease in " + file, e);
        }
    }

    private synchronized void extendLease(long needed) throws IOException {
        if (needed < leaseEnd) {
            return; // another thread extended it meanwhile
        }
        long bound = needed + leaseMicros;
        file.replace(Long.toString(bound).getBytes(StandardCharsets.US_ASCII));
        leaseEnd = bound;
    }

    private static long parseLease(AtomicFile file, byte[] saved) throws IOException {
        String text = new String(saved, StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IOException("Corrupt timestamp lease file " + file + ": '" + text + "'", e);
        }
    }

    private static long nowMicros() {
        return System.currentTimeMillis() * 1000L;
    }
}
