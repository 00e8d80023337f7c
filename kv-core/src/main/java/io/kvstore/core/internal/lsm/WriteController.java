package io.kvstore.core.internal.lsm;

import io.kvstore.core.CompactionStyle;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoStats;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.WritesStoppedException;
import io.kvstore.core.internal.log.WriteAheadLog;

import io.kvstore.core.internal.util.ByteRateLimiter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The write path: appends each write to the log, then inserts it into the active memtable, one writer
 * at a time; switches to a fresh memtable and log when the active one is full, and stalls writers
 * while {@link DaoOptions#maxFrozenMemtables()} frozen memtables wait for the {@link Flusher}.
 *
 * <p>Under leveled compaction it also holds writers back while level 0 piles up, as RocksDB does: from
 * {@link #SLOWDOWN_FACTOR} times {@link DaoOptions#compactionTrigger()} level 0 tables on, all writers
 * together write no more than {@link DaoOptions#delayedWriteBytesPerSecond()}, less by a fifth for each
 * table beyond (which spreads the delay over many writes rather than stopping one for seconds, and hands
 * compaction more of the cores the further it falls behind); from {@link #STOP_FACTOR} times the trigger
 * on, writes wait until a compaction brings level 0 below it. A fixed slowdown rate holds back only
 * writers faster than it: slower ones, on cores that compaction needs, run level 0 into the stop,
 * where every write waits seconds for the compaction that finally gets the cores
 * (docs/TUNING.md, writers' slowdown). Level 0 is what every point read and range read must consult
 * table by table, and what makes the space shadowed versions take grow without bound when compaction
 * falls behind. The thresholds are RocksDB's (20 and 36 for a trigger of 4), not
 * LevelDB's (8 and 12): level 0 then absorbs the flushes that arrive while the one compaction thread
 * works through a large compaction deeper down, instead of writers waiting for it; and the slowdown is
 * a rate rather than LevelDB's millisecond per write, which with writes handed to a few storage
 * threads capped them at a few thousand per second, however small.
 *
 * <p>Writers are also held back by the compaction debt, in proportion to it ({@link DebtSlowdown}), so
 * that a long run of writes that compaction cannot follow is slowed smoothly long before level 0 reaches
 * the stop; the lower of the two rates applies. While writers are held back and compaction waits for
 * disk space, writes are refused as the disk being full (507 over HTTP) rather than slowed further.
 *
 * <p>Only tables flushed under leveled compaction count, before and after a reopen: inherited tables
 * ({@link Version#inherited}, all the tables of a store written under size-tiered compaction) are
 * moved into levels in the background, and holding writers back until they are would stop a store
 * that changes compaction style for as long as that takes.
 */
final class WriteController {
    private static final long STALL_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Lock attempts before a writer parks; a few microseconds of spinning (see {@link #lock}). */
    private static final int WRITE_LOCK_SPINS = 256;
    /** Queued writes one holder of the lock appends before letting it go. */
    private static final int MAX_QUEUED_PER_TURN = 64;
    /**
     * How long a queued writer waits for its write, yielding its core, before it parks on the lock:
     * several appends of other writers, so that taking turns costs no futex wake-up (docs/TUNING.md,
     * writers taking turns).
     */
    private static final long QUEUED_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /**
     * Yields a queued writer makes before it may park, however long they took: when a yield hands the
     * core to the flush for a time slice, the clock runs out without the writer having waited on the
     * holder at all.
     */
    private static final int QUEUED_YIELDS = 64;
    /** Level 0 tables, in compaction triggers, from which writes are slowed down (RocksDB: 20 for a trigger of 4). */
    static final int SLOWDOWN_FACTOR = 5;
    /** Level 0 tables, in compaction triggers, from which writes stop (RocksDB: 36 for a trigger of 4). */
    static final int STOP_FACTOR = 9;
    /** What each level 0 table beyond the slowdown's start multiplies its rate by (RocksDB's step too). */
    static final double SLOWDOWN_STEP = 0.8;
    /** Lowest rate of the slowdown, so that writers still move while a compaction is stuck (RocksDB's too). */
    static final long MIN_DELAYED_WRITE_BYTES_PER_SECOND = 16 << 10;
    /** Bytes a write counts for in the slowdown besides its key and value (sequence, timestamp, lengths). */
    private static final int WRITE_OVERHEAD_BYTES = 24;

    private final DaoOptions options;
    private final Path dir;
    private final WriteAheadLog wal;
    private final VersionSet versions;
    private final StoreState state;
    private final Flusher flusher;
    private final DaoStats stats;
    /** Level 0 tables from which writes are slowed down and stopped: never under size-tiered compaction. */
    private final int slowdownAt;
    private final int stopAt;
    /** Paces writers in the slowdown; shared by all of them. */
    private final ByteRateLimiter delayedWrites;
    /** The writers' rate by compaction debt; null under size-tiered compaction. */
    private final DebtSlowdown debt;
    /** Serialises writers: log order is memtable order, so a replay rebuilds the memtable as it was. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Writes waiting for the holder of {@link #writeLock} to append them ({@link #upsert}). */
    private final ConcurrentLinkedQueue<QueuedWrite> queued = new ConcurrentLinkedQueue<>();
    /** Number of the log the next memtable switch moves to, made ahead by the log (GUARDED_BY writeLock). */
    private long nextLogNumber;
    private long lastSequence;
    private volatile long visibleSequence;
    /** Size at which the active memtable is frozen (GUARDED_BY writeLock); see {@link #nextFlushAt()}. */
    private long flushAt;

    /** Writes after {@code lastSequence}, the sequence of the last entry the recovered memtables hold. */
    WriteController(DaoOptions options, WriteAheadLog wal, VersionSet versions, StoreState state, DaoStats stats,
                    Flusher flusher, long lastSequence) {
        this.stats = stats;
        this.lastSequence = lastSequence;
        this.visibleSequence = lastSequence;
        this.options = options;
        this.dir = options.dataDirectory();
        this.wal = wal;
        this.versions = versions;
        this.state = state;
        this.flusher = flusher;
        boolean leveled = options.compactionStyle() == CompactionStyle.LEVELED;
        this.slowdownAt = leveled ? SLOWDOWN_FACTOR * options.compactionTrigger() : Integer.MAX_VALUE;
        this.stopAt = leveled ? STOP_FACTOR * options.compactionTrigger() : Integer.MAX_VALUE;
        this.delayedWrites = new ByteRateLimiter(options.delayedWriteBytesPerSecond());
        this.debt = leveled ? new DebtSlowdown(options) : null;
        this.flushAt = nextFlushAt();
        wal.onForceFailure(failure -> {
            state.fail(failure);
            versions.wakeWaiters();
        });
        prepareNextLog();
    }

    /** The size the next active memtable is frozen at: the threshold less a random part of its spread. */
    private long nextFlushAt() {
        long threshold = options.flushThresholdBytes();
        double spread = options.flushThresholdSpread();
        return spread == 0 ? threshold : threshold - (long) (threshold * spread * ThreadLocalRandom.current().nextDouble());
    }

    /**
     * Stores {@code entry} and waits until it is as durable as the sync policy promises. A writer that
     * finds the lock free writes its entry, then the entries queued meanwhile by writers that found it
     * held; those wait, yielding their core, for their entry to be written, so that writers taking turns do not
     * hand the lock over through a park and a wake-up for each write ({@link QueuedWrite}).
     */
    void upsert(Entry entry) throws IOException {
        awaitLevelZero(entry);
        long position;
        if (queued.isEmpty() && writeLock.tryLock()) {
            try {
                position = appendChecked(entry);
                appendQueued();
            } finally {
                writeLock.unlock();
            }
        } else {
            position = appendThroughQueue(entry);
        }
        try {
            wal.awaitDurable(position);
        } catch (IOException e) {
            // The log's fsync failed (the log keeps failing every write after it): stop writes, naming it.
            WritesStoppedException stopped = state.fail(e);
            versions.wakeWaiters();
            throw stopped;
        }
    }

    /**
     * Queues {@code entry} for the holder of the lock, or for this writer once it takes the lock itself
     * ({@link #QUEUED_YIELDS} yields and {@link #QUEUED_WAIT_NANOS}, then parking); returns its log position once written.
     */
    private long appendThroughQueue(Entry entry) throws IOException {
        QueuedWrite write = new QueuedWrite(entry);
        queued.add(write);
        long waitUntil = System.nanoTime() + QUEUED_WAIT_NANOS;
        for (int yields = 0; !write.done; yields++) {
            if (!writeLock.tryLock()) {
                if (yields < QUEUED_YIELDS || System.nanoTime() - waitUntil < 0) {
                    // Yield rather than spin in place: the flush that frees the next memtable may be
                    // waiting for this core, and a spinning writer would hold it for its whole slice.
                    Thread.yield();
                    continue;
                }
                writeLock.lock();
            }
            try {
                appendQueued();
            } finally {
                writeLock.unlock();
            }
        }
        Throwable failure = write.failure;
        if (failure instanceof IOException e) {
            throw e;
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        return write.position;
    }

    /**
     * Writes the queued entries, at most {@link #MAX_QUEUED_PER_TURN} in a turn so that the writer doing
     * it is held up for a bounded time; each failure goes to its own writer. REQUIRES writeLock.
     */
    private void appendQueued() {
        QueuedWrite write;
        for (int n = 0; n < MAX_QUEUED_PER_TURN && (write = queued.poll()) != null; n++) {
            try {
                write.position = appendChecked(write.entry);
            } catch (Throwable e) {
                write.failure = e;
            }
            write.done = true;
        }
    }

    /** Logs and inserts {@code entry} into a memtable with room, switching first if it is full. REQUIRES writeLock. */
    private long appendChecked(Entry entry) throws IOException {
        state.ensureWritable();
        if (versions.current().active.sizeBytes() >= flushAt) {
            switchMemtable();
        }
        return append(entry);
    }

    /**
     * Stores {@code entry} if that needs no waiting: the log is not synced per write, level 0 is below
     * the slowdown (or at it, with the slowdown's rate leaving room for this write), the lock comes free
     * within a short spin, and the active memtable has room. Returns false, having done nothing,
     * otherwise (a write let through by the slowdown's rate is charged to it all the same).
     */
    boolean tryUpsertNow(Entry entry) throws IOException {
        if (options.syncPolicy() != SyncPolicy.NONE) {
            return false;
        }
        Version v = versions.current();
        if (v.flushedLevelZeroTables >= stopAt) {
            return false;
        }
        long rate = slowdownRate(v);
        if (rate != Long.MAX_VALUE && (state.space().compactionWaits() || !delayedWritesAt(rate).tryAcquire(slowdownBytes(entry)))
                || !tryLock()) {
            return false;
        }
        try {
            state.ensureWritable();
            if (versions.current().active.sizeBytes() >= flushAt) {
                return false;
            }
            append(entry);
            return true;
        } finally {
            writeLock.unlock();
        }
    }

    /** Freezes the active memtable for flushing unless it is empty. */
    void freezeActive() throws IOException {
        state.ensureOpen();
        flusher.retryIfWaitingForSpace(); // so that there is room for it among the frozen memtables
        writeLock.lock();
        try {
            state.ensureWritable();
            if (!versions.current().active.isEmpty()) {
                switchMemtable();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** The sequence number of the last write visible to readers. */
    long visibleSequence() {
        return visibleSequence;
    }

    /**
     * Takes the writers' lock, spinning briefly before parking: a writer holds it for a log append and
     * a memtable insert (a few microseconds), far less than the futex wake-up and context switch a park
     * costs, which made lock hand-over a large share of a write's CPU with writers on two event loops.
     */
    void lock() {
        if (!tryLock()) {
            writeLock.lock();
        }
    }

    void unlock() {
        writeLock.unlock();
    }

    /** Marks the store closed under the writers' lock, so that no write is half done when it is. */
    void closeWrites() {
        writeLock.lock();
        try {
            state.markClosed();
        } finally {
            writeLock.unlock();
        }
    }

    /** Closes the log (forcing it first unless the policy is NONE). REQUIRES: writes closed. */
    void closeLog() throws IOException {
        wal.close();
    }

    /** Spins for the writers' lock as {@link #lock} does, but gives up instead of parking. */
    private boolean tryLock() {
        for (int spin = 0; spin < WRITE_LOCK_SPINS; spin++) {
            if (writeLock.tryLock()) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /** Logs and inserts {@code entry}; returns its log position. REQUIRES writeLock. */
    private long append(Entry entry) throws IOException {
        long position;
        try {
            position = wal.append(entry);
        } catch (InsufficientStorageException e) {
            // The log is as it was before the record: the next write tries again.
            state.refuseForSpace(e);
            throw e;
        } catch (IOException e) {
            // A partly written record must not be followed by more: refuse writes until reopened.
            throw state.fail(e);
        }
        state.spaceTaken();
        if (debt != null) {
            debt.written(slowdownBytes(entry));
        }
        long sequence = ++lastSequence;
        versions.current().active.put(entry, sequence);
        visibleSequence = sequence;
        return position;
    }

    /**
     * Holds the writer back while level 0 is at the slowdown or the stop (see the class comment).
     * Called without the writers' lock: a compaction that leaves tombstones out takes that lock to
     * install its result.
     */
    private void awaitLevelZero(Entry entry) throws IOException {
        Version v = versions.current();
        int tables = v.flushedLevelZeroTables;
        if (tables < stopAt) {
            long rate = slowdownRate(v);
            if (rate == Long.MAX_VALUE) {
                return;
            }
            refuseIfCompactionWaitsForSpace();
            long waited = delayedWritesAt(rate).acquireNanos(slowdownBytes(entry), state::isClosed);
            if (waited > 0) {
                stats.writeStalled(waited);
            }
            state.ensureWritable();
            return;
        }
        long start = System.nanoTime();
        VersionSet.IoCheck check = () -> {
            state.ensureWritable();
            refuseIfCompactionWaitsForSpace();
        };
        try {
            if (!versions.awaitFlushedLevelZeroBelow(stopAt, STALL_TIMEOUT_NANOS, check)) {
                throw new IOException("writes to " + dir + " stalled for " + TimeUnit.NANOSECONDS.toSeconds(STALL_TIMEOUT_NANOS)
                        + " s: compaction cannot bring level 0 below " + stopAt + " tables");
            }
        } finally {
            stats.writeStalled(System.nanoTime() - start);
        }
    }

    /**
     * The rate all writers together may write at with {@code v}: the lower of level 0's slowdown and the
     * compaction debt's ({@link DebtSlowdown}); {@link Long#MAX_VALUE} if neither holds them back.
     */
    private long slowdownRate(Version v) {
        if (debt == null) {
            return Long.MAX_VALUE;
        }
        int tables = v.flushedLevelZeroTables;
        long levelZero = tables < slowdownAt ? Long.MAX_VALUE
                : delayedWriteRate(options.delayedWriteBytesPerSecond(), tables - slowdownAt);
        return Math.min(levelZero, debt.rate(v));
    }

    /**
     * Refuses the write (507) while writers are held back and compaction waits for space: the debt
     * goes down no sooner than space comes back, so waiting would only make every write slower.
     */
    private void refuseIfCompactionWaitsForSpace() throws InsufficientStorageException {
        String waiting = state.space().compactionWaiting();
        if (waiting != null) {
            InsufficientStorageException refused = new InsufficientStorageException("writes are held back until"
                    + " compaction catches up, and compaction waits for space: " + waiting);
            state.refuseForSpace(refused);
            throw refused;
        }
    }

    /** The slowdown's limiter, at {@code rate}. */
    private ByteRateLimiter delayedWritesAt(long rate) {
        delayedWrites.setBytesPerSecond(rate);
        return delayedWrites;
    }

    /**
     * The slowdown's rate with {@code beyond} level 0 tables past its start: {@code initial} lowered by
     * {@link #SLOWDOWN_STEP} per table, never below {@link #MIN_DELAYED_WRITE_BYTES_PER_SECOND} (nor
     * above {@code initial}, if that is lower).
     */
    static long delayedWriteRate(long initial, int beyond) {
        double rate = initial * Math.pow(SLOWDOWN_STEP, Math.max(0, beyond));
        return Math.max(Math.min(initial, MIN_DELAYED_WRITE_BYTES_PER_SECOND), (long) rate);
    }

    /** What {@code entry} counts for against {@link DaoOptions#delayedWriteBytesPerSecond()}. */
    private static long slowdownBytes(Entry entry) {
        return entry.key().length + (entry.value() == null ? 0 : entry.value().length) + WRITE_OVERHEAD_BYTES;
    }

    /** Waits until fewer than the most frozen memtables are queued. REQUIRES writeLock. */
    private void awaitFrozenRoom() throws IOException {
        VersionSet.IoCheck check = () -> {
            state.ensureWritable();
            flusher.throwIfWaitingForSpace(); // no room will come before space does
        };
        if (!versions.awaitFrozenBelow(options.maxFrozenMemtables(), STALL_TIMEOUT_NANOS, check)) {
            throw new IOException("writes to " + dir + " stalled for " + TimeUnit.NANOSECONDS.toSeconds(STALL_TIMEOUT_NANOS)
                    + " s: flushing cannot keep up");
        }
    }

    /** REQUIRES writeLock. */
    private void switchMemtable() throws IOException {
        if (versions.current().frozen.length >= options.maxFrozenMemtables()) {
            long start = System.nanoTime();
            try {
                awaitFrozenRoom();
            } catch (InsufficientStorageException e) {
                state.refuseForSpace(e);
                throw e;
            } finally {
                stats.writeStalled(System.nanoTime() - start);
            }
        }
        long number = nextLogNumber;
        Memtable fresh = new Memtable(number, options.flushThresholdBytes());
        try {
            wal.rotate(FileNames.log(dir, number));
        } catch (InsufficientStorageException e) {
            // No new log: the memtable stays active, and the next write tries the switch again.
            state.refuseForSpace(e);
            throw e;
        } catch (IOException e) {
            throw state.fail(e);
        }
        prepareNextLog();
        versions.switchMemtable(fresh);
        flushAt = nextFlushAt();
        flusher.schedule();
    }

    /** Waits until the next log file made ahead is made or failed (for tests). */
    void awaitNextLog() {
        wal.awaitPrepared();
    }

    /** Numbers the log the next memtable switch moves to, and has the log make it ahead. REQUIRES writeLock (or no writers yet). */
    private void prepareNextLog() {
        nextLogNumber = versions.newFileNumber();
        wal.prepare(FileNames.log(dir, nextLogNumber));
    }

    /**
     * A write handed to whichever writer holds the lock. Its position or failure is set before
     * {@link #done}, whose volatile write publishes them to the writer waiting for it.
     */
    private static final class QueuedWrite {
        final Entry entry;
        long position;
        Throwable failure;
        volatile boolean done;

        QueuedWrite(Entry entry) {
            this.entry = entry;
        }
    }
}
