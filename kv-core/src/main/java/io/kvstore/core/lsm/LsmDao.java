package io.kvstore.core.lsm;

import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import io.kvstore.core.log.LogReader;
import io.kvstore.core.log.WriteAheadLog;
import io.kvstore.core.table.SsTable;
import io.kvstore.core.table.SsTableWriter;
import io.kvstore.core.util.MergeIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * kvstore's own log-structured merge-tree engine.
 *
 * <p>A write goes to the write-ahead log, then into the active memtable. A memtable past
 * {@link DaoOptions#flushThresholdBytes()} is frozen and flushed to an SSTable by a background thread
 * while writes continue in a fresh one; writers wait only when
 * {@link DaoOptions#maxFrozenMemtables()} frozen memtables are already queued. A background thread
 * merges runs of similar-sized tables (see {@link CompactionPicker}). The live set of tables and
 * the oldest log still needed are recorded in a manifest that is replaced atomically, so a crash
 * at any instant leaves a store that reopens with every acknowledged write.
 *
 * <p>Reads take the current {@link Version} without locking. A point read consults memtables, then
 * tables newest first, skipping tables by key range, Bloom filter and timestamp range. A range read
 * merges a snapshot: memtable versions up to a sequence number, and tables kept alive by reference
 * counts until the iterator is closed.
 */
public final class LsmDao implements Dao {
    /** Largest accepted key; keys are also stored in the block index. */
    public static final int MAX_KEY_BYTES = 16 << 20;
    /** Largest accepted value, so that any data block stays under 1 GiB. */
    public static final int MAX_VALUE_BYTES = 512 << 20;

    private static final Logger LOG = LoggerFactory.getLogger(LsmDao.class);
    private static final long STALL_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Lock attempts before a writer parks; about 5-10 microseconds of spinning (see lockForWrite). */
    private static final int WRITE_LOCK_SPINS = 256;
    /** Shortest interval between residency checks while reads come through {@link #getAsync}. */
    private static final long RESIDENCY_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** A residency check is followed by this many times its own duration without one. */
    private static final long RESIDENCY_CHECK_DUTY = 100;
    /** {@link #lookup}'s answer when a table it would consult was not wholly in memory. */
    private static final Entry WOULD_READ_DISK = Entry.tombstone(new byte[0], Long.MIN_VALUE);

    private final DaoOptions options;
    private final Path dir;
    private final DirectoryLock lock;
    private final WriteAheadLog wal;
    private final AtomicLong nextFileNumber;
    /** Number of the log the next memtable switch moves to, made ahead by the log (GUARDED_BY writeLock). */
    private long nextLogNumber;
    /** Serialises writers: log order is memtable order, so a replay rebuilds the memtable as it was. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Guards publication of versions; held for no I/O, as memtable switches take it under the write lock. */
    private final Object versionLock = new Object();
    /**
     * Serialises flushes and compactions from the manifest write to the switch (see {@link #install}):
     * only they change the tables and the oldest log still needed, which is all a manifest records.
     * Lock order: writeLock, manifestLock, versionLock.
     */
    private final Object manifestLock = new Object();
    private final ExecutorService flusher;
    private final ExecutorService compactor;
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private final AtomicLong flushedBytes = new AtomicLong();
    private final AtomicLong compactedBytes = new AtomicLong();
    private volatile Version current;
    private volatile long visibleSequence;
    private long lastSequence;
    private volatile IOException backgroundFailure;
    private volatile boolean closed;
    private final AtomicBoolean residencyCheckRunning = new AtomicBoolean();
    private volatile long nextResidencyCheck = System.nanoTime();

    private LsmDao(DaoOptions options, DirectoryLock lock, WriteAheadLog wal, Version initial, long nextFileNumber) {
        this.options = options;
        this.dir = options.dataDirectory();
        this.lock = lock;
        this.wal = wal;
        this.current = initial;
        this.nextFileNumber = new AtomicLong(nextFileNumber);
        prepareNextLog();
        this.flusher = Executors.newSingleThreadExecutor(background("kvstore-flush", options.backgroundPriority()));
        this.compactor = Executors.newSingleThreadExecutor(background("kvstore-compaction", options.backgroundPriority()));
    }

    /**
     * Opens (creating if needed) the store in {@code options.dataDirectory()}, replaying logs newer
     * than the manifest. Fails with an {@link IOException} if another open store holds the directory,
     * or if a file is corrupt (a torn log tail is not corruption: it is cut off).
     */
    public static LsmDao open(DaoOptions options) throws IOException {
        Path dir = options.dataDirectory();
        Files.createDirectories(dir);
        DirectoryLock lock = DirectoryLock.acquire(dir);
        try {
            return recover(options, lock);
        } catch (IOException | RuntimeException | Error e) {
            lock.close();
            throw e;
        }
    }

    private static LsmDao recover(DaoOptions options, DirectoryLock lock) throws IOException {
        Path dir = options.dataDirectory();
        Manifest manifest = Manifest.read(dir);
        if (manifest == null) {
            manifest = Manifest.empty();
        }
        Files.deleteIfExists(dir.resolve(FileNames.MANIFEST_TMP));
        Set<Long> live = new HashSet<>();
        for (long number : manifest.tables) {
            live.add(number);
        }
        List<Long> logs = new ArrayList<>();
        long maxNumber = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                long table = FileNames.number(name, FileNames.TABLE_SUFFIX);
                long log = FileNames.number(name, FileNames.LOG_SUFFIX);
                if (table >= 0) {
                    maxNumber = Math.max(maxNumber, table);
                    if (!live.contains(table)) {
                        LOG.info("Deleting {}: not in the manifest (left by an interrupted flush or compaction)", file);
                        Files.delete(file);
                    }
                } else if (log >= 0) {
                    maxNumber = Math.max(maxNumber, log);
                    if (log < manifest.logNumber) {
                        Files.delete(file);
                    } else {
                        logs.add(log);
                    }
                }
            }
        }
        logs.sort(null);
        AtomicLong next = new AtomicLong(Math.max(manifest.nextFileNumber, maxNumber + 1));

        List<SsTable> tables = new ArrayList<>();
        for (long number : manifest.tables) {
            tables.add(SsTable.open(FileNames.table(dir, number), number));
        }
        Memtable recovered = new Memtable(-1);
        long[] sequence = {0};
        for (long number : logs) {
            Path file = FileNames.log(dir, number);
            LogReader.Result result = LogReader.replay(file, entry -> recovered.put(entry, ++sequence[0]));
            if (result.tornBytes > 0) {
                // After a crash: a record cut short, or the zeros of the log's last mapped window.
                LOG.warn("Cut a torn or zero-filled tail of {} bytes at offset {} of {}", result.tornBytes,
                        result.validLength, file);
            }
        }
        if (!recovered.isEmpty()) {
            long number = next.getAndIncrement();
            tables.add(0, writeTable(dir, number, recovered.iterator(null, null, Long.MAX_VALUE), recovered.keyCount(),
                    options, Long.MIN_VALUE, tombstone -> false, () -> false).table());
        }
        long logNumber = next.getAndIncrement();
        SsTable[] tableArray = tables.toArray(new SsTable[0]);
        Version initial = new Version(new Memtable(logNumber), new Memtable[0], tableArray);
        new Manifest(next.get(), logNumber, initial.tableNumbers()).write(dir);
        for (long number : logs) {
            Files.deleteIfExists(FileNames.log(dir, number));
        }
        WriteAheadLog wal = new WriteAheadLog(FileNames.log(dir, logNumber), options.syncPolicy(),
                options.groupCommitIntervalMillis());
        LsmDao dao = new LsmDao(options, lock, wal, initial, next.get());
        LOG.debug("Opened {} with {} tables after replaying {} logs", dir, tableArray.length, logs.size());
        dao.scheduleCompaction();
        return dao;
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        Objects.requireNonNull(key, "key");
        ensureOpen();
        return visible(lookup(key, false));
    }

    /** {@code found} as a read sees it now: an expired value reads as a tombstone of its timestamp. */
    private Entry visible(Entry found) {
        return found == null || !found.expires() ? found : found.asOf(options.clock().getAsLong());
    }

    /**
     * Answers on the calling thread when every table the read may touch was in memory at the last
     * residency check (see {@link #refreshResidency}), else on {@code mayBlock}. A page evicted since
     * that check is the one way such a read can still wait for the disk; the check runs on
     * {@code mayBlock} every 100 ms or more while reads come this way.
     */
    @Override
    public CompletableFuture<Entry> getAsync(byte[] key, Executor mayBlock) {
        Entry found;
        try {
            Objects.requireNonNull(key, "key");
            ensureOpen();
            found = lookup(key, true);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        scheduleResidencyCheck(mayBlock);
        return found == WOULD_READ_DISK ? Dao.super.getAsync(key, mayBlock)
                : CompletableFuture.completedFuture(visible(found));
    }

    /**
     * The visible version of {@code key}; with {@code residentOnly}, {@link #WOULD_READ_DISK} instead
     * of consulting a table that was not wholly in memory at its last check.
     */
    private Entry lookup(byte[] key, boolean residentOnly) throws IOException {
        Version v = current;
        Entry best = v.active.get(key);
        for (Memtable memtable : v.frozen) {
            if (best == null || memtable.maxTimestamp() >= best.timestamp()) {
                best = Entry.newerOf(best, memtable.get(key));
            }
        }
        SsTable[] tables = v.tables;
        long hash = 0;
        boolean hashed = false;
        for (SsTable table : tables) {
            // A table can only matter if it may hold a version that wins over the best found so far.
            if (best == null || table.maxTimestamp() >= best.timestamp()) {
                if (residentOnly && !table.isResident()) {
                    return WOULD_READ_DISK;
                }
                if (!hashed) {
                    hash = SsTable.hash(key);
                    hashed = true;
                }
                best = Entry.newerOf(best, table.get(key, hash));
            }
        }
        return best;
    }

    /** Starts a residency check on {@code mayBlock} if one is due and none is running. */
    private void scheduleResidencyCheck(Executor mayBlock) {
        if (System.nanoTime() - nextResidencyCheck < 0 || !residencyCheckRunning.compareAndSet(false, true)) {
            return;
        }
        try {
            mayBlock.execute(this::refreshResidency);
        } catch (RuntimeException rejected) {
            residencyCheckRunning.set(false);
        }
    }

    /**
     * Asks the OS which live tables are wholly in memory; event-loop reads consult only those. The
     * check costs about 20 ns per 4 KiB page (3.5 ms for 634 MB of tables), so the next one waits
     * {@link #RESIDENCY_CHECK_DUTY} times as long as this one took, and at least
     * {@link #RESIDENCY_CHECK_NANOS}: at most about 1% of a core, however large the store.
     */
    private void refreshResidency() {
        long start = System.nanoTime();
        try {
            for (SsTable table : current.tables) {
                table.checkResidency();
            }
        } finally {
            long end = System.nanoTime();
            nextResidencyCheck = end + Math.max(RESIDENCY_CHECK_NANOS, (end - start) * RESIDENCY_CHECK_DUTY);
            residencyCheckRunning.set(false);
        }
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        checkSizes(entry);
        long position;
        lockForWrite();
        try {
            ensureWritable();
            if (current.active.sizeBytes() >= options.flushThresholdBytes()) {
                rotateMemtable();
            }
            position = append(entry);
        } finally {
            writeLock.unlock();
        }
        wal.awaitDurable(position);
    }

    /**
     * Writes on the calling thread when the log is not synced per write and the write lock comes free
     * within a short spin with room in the active memtable: an append to the log in the OS page cache
     * and a memtable insert (as Redis appends to its log from its event loop). A write that would rotate
     * the memtable, which may wait for flushes, or wait for a sync or another writer, runs on
     * {@code mayBlock}.
     */
    @Override
    public CompletableFuture<Void> upsertAsync(Entry entry, Executor mayBlock) {
        try {
            checkSizes(entry);
            if (options.syncPolicy() == SyncPolicy.NONE && tryLockForWrite()) {
                try {
                    ensureWritable();
                    if (current.active.sizeBytes() < options.flushThresholdBytes()) {
                        append(entry);
                        return CompletableFuture.completedFuture(null);
                    }
                } finally {
                    writeLock.unlock();
                }
            }
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return Dao.super.upsertAsync(entry, mayBlock);
    }

    private static void checkSizes(Entry entry) {
        Objects.requireNonNull(entry, "entry");
        if (entry.key().length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key of " + entry.key().length + " bytes exceeds " + MAX_KEY_BYTES);
        }
        if (!entry.isTombstone() && entry.value().length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value of " + entry.value().length + " bytes exceeds " + MAX_VALUE_BYTES);
        }
    }

    /** Logs and inserts {@code entry}; returns its log position. REQUIRES writeLock. */
    private long append(Entry entry) throws IOException {
        long position;
        try {
            position = wal.append(entry);
        } catch (IOException e) {
            // A partly written record must not be followed by more: refuse writes until reopened.
            backgroundFailure = e;
            throw e;
        }
        long sequence = ++lastSequence;
        current.active.put(entry, sequence);
        visibleSequence = sequence;
        return position;
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        ensureOpen();
        Version v;
        long sequence;
        synchronized (versionLock) {
            v = current;
            sequence = visibleSequence;
            for (SsTable table : v.tables) {
                table.retain();
            }
        }
        try {
            List<CloseableIterator<Entry>> sources = new ArrayList<>(1 + v.frozen.length + v.tables.length);
            sources.add(v.active.iterator(from, to, sequence));
            for (Memtable memtable : v.frozen) {
                sources.add(memtable.iterator(from, to, sequence));
            }
            for (SsTable table : v.tables) {
                sources.add(table.iterator(from, to));
            }
            return new RangeIterator(new MergeIterator(sources), v.tables, options.clock().getAsLong());
        } catch (RuntimeException e) {
            RangeIterator.releaseAll(v.tables);
            throw e;
        }
    }

    @Override
    public void flush() throws IOException {
        writeLock.lock();
        try {
            ensureWritable();
            if (!current.active.isEmpty()) {
                rotateMemtable();
            }
        } finally {
            writeLock.unlock();
        }
        await(flusher.submit(() -> null), "flush");
        IOException failure = backgroundFailure;
        if (failure != null) {
            throw new IOException("flush of " + dir + " failed", failure);
        }
    }

    @Override
    public void compact() throws IOException {
        flush();
        await(compactor.submit(() -> {
            compactOldestNow(Integer.MAX_VALUE, () -> { });
            return null;
        }), "compaction");
    }

    @Override
    public void close() throws IOException {
        if (!closeStarted.compareAndSet(false, true)) {
            return;
        }
        IOException failure = null;
        try {
            if (backgroundFailure == null) {
                flush();
            }
        } catch (IOException e) {
            failure = e;
        }
        writeLock.lock();
        try {
            closed = true;
        } finally {
            writeLock.unlock();
        }
        compactor.shutdown();
        flusher.shutdown();
        try {
            compactor.awaitTermination(1, TimeUnit.MINUTES);
            flusher.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            wal.close();
        } catch (IOException e) {
            failure = chain(failure, e);
        }
        // Waits for a flush or compaction still between its manifest write and its switch; none starts after.
        synchronized (manifestLock) {
            synchronized (versionLock) {
                for (SsTable table : current.tables) {
                    try {
                        table.release();
                    } catch (IOException e) {
                        failure = chain(failure, e);
                    }
                }
                versionLock.notifyAll();
            }
        }
        try {
            lock.close();
        } catch (IOException e) {
            failure = chain(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Compacts the {@code count} oldest tables now, as a background compaction would (for tests). */
    void compactOldest(int count) throws IOException {
        compactOldest(count, () -> { });
    }

    /** {@link #compactOldest(int)}, running {@code afterMerge} between each merge and its switch (for tests). */
    void compactOldest(int count, Runnable afterMerge) throws IOException {
        await(compactor.submit(() -> {
            compactOldestNow(count, afterMerge);
            return null;
        }), "compaction");
    }

    private void compactOldestNow(int count, Runnable afterMerge) throws IOException {
        while (true) {
            Compaction job = planOldest(current, count);
            if (job == null || compactRun(job, afterMerge)) {
                return;
            }
        }
    }

    /** Bytes written by flushes since opening (the user data that reached tables). */
    long flushedBytes() {
        return flushedBytes.get();
    }

    /** Bytes written by compactions since opening. */
    long compactedBytes() {
        return compactedBytes.get();
    }

    /** Memtables frozen and waiting to be flushed (for tests). */
    int frozenMemtables() {
        return current.frozen.length;
    }

    /** Live tables, newest first (for tests and measurements). */
    SsTable[] liveTables() {
        return current.tables.clone();
    }

    /**
     * Takes the write lock, spinning briefly before parking: a writer holds it for a log append and a
     * memtable insert (a few microseconds), far less than the futex wake-up and context switch a park
     * costs; with writers on two event loops, parking at once made lock hand-over a sixth of PUT's CPU.
     */
    private void lockForWrite() {
        if (!tryLockForWrite()) {
            writeLock.lock();
        }
    }

    /** Spins for the write lock as {@link #lockForWrite} does, but gives up instead of parking. */
    private boolean tryLockForWrite() {
        for (int spin = 0; spin < WRITE_LOCK_SPINS; spin++) {
            if (writeLock.tryLock()) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }

    // ---- write path helpers (REQUIRES writeLock) ----

    private void rotateMemtable() throws IOException {
        awaitFrozenRoom();
        long number = nextLogNumber;
        Memtable fresh = new Memtable(number);
        try {
            wal.rotate(FileNames.log(dir, number));
        } catch (IOException e) {
            backgroundFailure = e;
            throw e;
        }
        prepareNextLog();
        synchronized (versionLock) {
            current = current.withNewActive(fresh);
        }
        try {
            flusher.execute(this::flushOldestFrozen);
        } catch (RejectedExecutionException e) {
            throw new IOException("store " + dir + " is closing", e);
        }
    }

    /** Numbers the log the next memtable switch moves to, and has the log make it ahead. REQUIRES writeLock (or no writers yet). */
    private void prepareNextLog() {
        nextLogNumber = nextFileNumber.getAndIncrement();
        wal.prepare(FileNames.log(dir, nextLogNumber));
    }

    private void awaitFrozenRoom() throws IOException {
        synchronized (versionLock) {
            long deadline = System.nanoTime() + STALL_TIMEOUT_NANOS;
            while (current.frozen.length >= options.maxFrozenMemtables()) {
                ensureWritable();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IOException("writes to " + dir + " stalled for " + TimeUnit.NANOSECONDS.toSeconds(STALL_TIMEOUT_NANOS)
                            + " s: flushing cannot keep up");
                }
                try {
                    versionLock.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for a flush of " + dir);
                }
            }
        }
    }

    // ---- background work ----

    private void flushOldestFrozen() {
        try {
            if (backgroundFailure != null) {
                return;
            }
            Memtable memtable;
            synchronized (versionLock) {
                Memtable[] frozen = current.frozen;
                if (frozen.length == 0) {
                    return;
                }
                memtable = frozen[frozen.length - 1];
            }
            SsTable table = memtable.isEmpty() ? null : writeTable(dir, nextFileNumber.getAndIncrement(),
                    memtable.iterator(null, null, Long.MAX_VALUE), memtable.keyCount(), options, Long.MIN_VALUE,
                    tombstone -> false, () -> false).table();
            if (table != null) {
                flushedBytes.addAndGet(table.fileSize());
            }
            synchronized (manifestLock) {
                if (closed) {
                    // close() has begun: nothing may be installed any more; this memtable's log stays
                    // and is replayed at the next open.
                    discard(table);
                    return;
                }
                install(v -> v.withFlushed(memtable, table));
            }
            Files.deleteIfExists(FileNames.log(dir, memtable.logNumber()));
            scheduleCompaction();
        } catch (IOException | RuntimeException e) {
            LOG.error("Flush failed in {}; writes are refused until the store is reopened", dir, e);
            backgroundFailure = e instanceof IOException ? (IOException) e : new IOException(e);
            synchronized (versionLock) {
                versionLock.notifyAll();
            }
        }
    }

    private void scheduleCompaction() {
        if (closed) {
            return;
        }
        try {
            compactor.execute(this::compactWhileNeeded);
        } catch (RejectedExecutionException e) {
            // Closing: no more background work.
        }
    }

    private void compactWhileNeeded() {
        try {
            while (!closed) {
                Compaction job = planBackground(current);
                if (job == null) {
                    return;
                }
                compactRun(job, () -> { });
            }
        } catch (CancellationException e) {
            LOG.debug("Compaction in {} cancelled by close", dir);
        } catch (IOException | RuntimeException e) {
            // Reads and writes go on; tables pile up until the cause is fixed and the store reopened.
            LOG.error("Background compaction failed in {}", dir, e);
        }
    }

    /**
     * What one compaction merges. It holds no {@link Version}: a version pins its memtables, and a
     * merge that outlives several memtable switches would keep them all on the heap (a 24 MiB heap ran
     * out that way).
     */
    private record Compaction(SsTable[] inputs, long dropTombstonesBelow) {
    }

    /**
     * Whether a merge may leave out {@code tombstone}: no newer source may hold a version it must shadow
     * (its timestamp is below {@code dropTombstonesBelow}) and its grace period is over.
     */
    private boolean mayDrop(Entry tombstone, long dropTombstonesBelow, long graceEndsBeforeMillis) {
        return tombstone.timestamp() < dropTombstonesBelow
                && options.timestampToMillis().applyAsLong(tombstone.timestamp()) < graceEndsBeforeMillis;
    }

    /** Tombstones written before this instant (wall-clock milliseconds) are past their grace. */
    private long graceEndsBeforeMillis(long now) {
        long grace = options.tombstoneGrace().toMillis();
        return now - grace > now ? Long.MIN_VALUE : now - grace;
    }

    /** The run the size-tiered policy picks in {@code v}, or null if none is due. */
    private Compaction planBackground(Version v) {
        long[] sizes = new long[v.tables.length];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = v.tables[i].fileSize();
        }
        int[] run = CompactionPicker.pick(sizes, options.compactionTrigger());
        return run == null ? null : plan(v, run[0], run[1]);
    }

    /** The {@code count} oldest tables of {@code v}, or null if it has none. */
    private static Compaction planOldest(Version v, int count) {
        int n = v.tables.length;
        return n == 0 ? null : plan(v, Math.max(0, n - count), n);
    }

    /** Merging {@code v.tables[start, end)}. */
    private static Compaction plan(Version v, int start, int end) {
        SsTable[] inputs = Arrays.copyOfRange(v.tables, start, end);
        long dropTombstonesBelow = Long.MIN_VALUE;
        if (end == v.tables.length) {
            // Nothing older can hide behind a tombstone; keep it only while a newer source may hold an
            // older-timestamped version it must still shadow.
            dropTombstonesBelow = minTimestampNewerThan(v, inputs[0]);
        }
        return new Compaction(inputs, dropTombstonesBelow);
    }

    /** The smallest timestamp in {@code v}'s memtables and in its tables newer than {@code table}. */
    private static long minTimestampNewerThan(Version v, SsTable table) {
        long min = v.active.minTimestamp();
        for (Memtable memtable : v.frozen) {
            min = Math.min(min, memtable.minTimestamp());
        }
        for (SsTable newer : v.tables) {
            if (newer == table) {
                break;
            }
            min = Math.min(min, newer.minTimestamp());
        }
        return min;
    }

    /**
     * Merges {@code job}'s inputs into one table that takes their place ({@code afterMerge} runs between
     * the merge and the switch: a test's window). Returns false, having installed nothing, if a write
     * that a tombstone left out of the output still had to shadow arrived during the merge; planned
     * again, the compaction keeps that tombstone.
     */
    private boolean compactRun(Compaction job, Runnable afterMerge) throws IOException {
        SsTable[] inputs = job.inputs();
        long expectedKeys = 0;
        List<CloseableIterator<Entry>> sources = new ArrayList<>(inputs.length);
        for (SsTable table : inputs) {
            expectedKeys += table.entryCount();
            sources.add(table.iterator(null, null));
        }
        Written written;
        long now = options.clock().getAsLong();
        long graceEnds = graceEndsBeforeMillis(now);
        try (MergeIterator merged = new MergeIterator(sources)) {
            written = writeTable(dir, nextFileNumber.getAndIncrement(), merged, expectedKeys, options, now,
                    tombstone -> mayDrop(tombstone, job.dropTombstonesBelow(), graceEnds), () -> closed);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        afterMerge.run();
        SsTable output = written.table();
        // The tombstones left out were older than every newer source when the merge was planned; a write
        // arriving since (a late replica's, with an older timestamp) may need one to stay hidden. No write
        // may land between this check and the switch, hence the write lock, taken only then: every writer
        // waits for the manifest write (two fsyncs, 1.7 ms at the median and up to 9 ms on this machine's
        // disk). Other compactions, like flushes, switch without stopping writers (see install).
        boolean droppedTombstones = written.newestDroppedTombstone() != Long.MIN_VALUE;
        // The write lock before the manifest lock: a writer holds the former while it waits for a flush,
        // which needs the latter.
        if (droppedTombstones) {
            lockForWrite();
        }
        try {
            synchronized (manifestLock) {
                if (closed) {
                    // close() may have stopped waiting for this compaction and will give the directory up:
                    // nothing may be installed any more. (close() sets closed before it takes the manifest
                    // lock to release the tables and then the directory.)
                    discard(output);
                    throw new CancellationException("compaction of " + dir + " abandoned: store closed");
                }
                if (droppedTombstones && written.newestDroppedTombstone() >= minTimestampNewerThan(current, inputs[0])) {
                    LOG.info("Compaction of {} tables of {} discarded: a write older than a tombstone it left out "
                            + "arrived during the merge", inputs.length, dir);
                    discard(output);
                    return false;
                }
                try {
                    install(v -> v.withCompacted(inputs, output));
                } catch (IOException e) {
                    // Not installed: delete the output, or every retry on a full disk would leave one more.
                    if (output != null && !Manifest.lists(dir, output.fileNumber())) {
                        discard(output);
                    }
                    throw e;
                }
            }
        } finally {
            if (droppedTombstones) {
                writeLock.unlock();
            }
        }
        if (output != null) {
            compactedBytes.addAndGet(output.fileSize());
        }
        LOG.debug("Compacted {} tables of {} into {}", inputs.length, dir, output);
        for (SsTable table : inputs) {
            table.markObsolete();
        }
        RangeIterator.releaseAll(inputs);
        return true;
    }

    /**
     * Records in the manifest, then publishes, the version {@code change} makes of the current one.
     * REQUIRES manifestLock. The manifest is written outside the version lock: a memtable switch takes
     * that lock while holding the write lock, and every writer would otherwise wait out the manifest's
     * two fsyncs (milliseconds, or far longer on a busy disk) whenever a switch met a flush or compaction.
     * Applying {@code change} again to the version current at the switch records the same manifest, since
     * only flushes and compactions, serialised by manifestLock, change tables or the oldest unflushed
     * memtable; a switch in between only freezes the active memtable and starts a newer one.
     */
    private void install(UnaryOperator<Version> change) throws IOException {
        Version planned;
        synchronized (versionLock) {
            planned = change.apply(current);
        }
        new Manifest(nextFileNumber.get(), planned.oldestLogNumber(), planned.tableNumbers()).write(dir);
        synchronized (versionLock) {
            Version next = change.apply(current);
            if (next.oldestLogNumber() != planned.oldestLogNumber()
                    || !Arrays.equals(next.tableNumbers(), planned.tableNumbers())) {
                throw new IllegalStateException("the version changed under the manifest lock in " + dir);
            }
            current = next;
            versionLock.notifyAll();
        }
    }

    /** Deletes a table written but never installed (none if {@code table} is null). */
    private static void discard(SsTable table) throws IOException {
        if (table != null) {
            table.markObsolete();
            table.release();
        }
    }

    /** A table just written, and the newest timestamp among the tombstones left out of it. */
    private record Written(SsTable table, long newestDroppedTombstone) {
    }

    /**
     * Writes {@code entries} as table {@code number}, values expired at {@code nowMillis} as tombstones
     * of their timestamps, leaving out the tombstones {@code mayDropTombstone} accepts; the opened table is null if nothing was left to write.
     * Throws {@link CancellationException} (having deleted the partial file) once {@code cancelled}.
     */
    private static Written writeTable(Path dir, long number, Iterator<Entry> entries, long expectedKeys,
                                      DaoOptions options, long nowMillis, Predicate<Entry> mayDropTombstone,
                                      BooleanSupplier cancelled)
            throws IOException {
        Path path = FileNames.table(dir, number);
        long newestDropped = Long.MIN_VALUE;
        try (SsTableWriter writer = new SsTableWriter(path, options.blockSizeBytes(), options.bloomBitsPerKey(),
                expectedKeys, options.compression())) {
            long seen = 0;
            while (entries.hasNext()) {
                if ((++seen & 1023) == 0 && cancelled.getAsBoolean()) {
                    throw new CancellationException("table " + path + " abandoned: store closing");
                }
                Entry entry = entries.next();
                if (entry.expires()) {
                    entry = entry.asOf(nowMillis);
                }
                if (entry.isTombstone() && mayDropTombstone.test(entry)) {
                    newestDropped = Math.max(newestDropped, entry.timestamp());
                    continue;
                }
                writer.add(entry);
            }
            if (writer.entryCount() == 0) {
                return new Written(null, newestDropped);
            }
            writer.finish();
        }
        SsTable table = SsTable.open(path, number);
        // Just written through the page cache, so normally resident: reads need not wait for a check.
        table.checkResidency();
        return new Written(table, newestDropped);
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("store " + dir + " is closed");
        }
    }

    private void ensureWritable() throws IOException {
        ensureOpen();
        IOException failure = backgroundFailure;
        if (failure != null) {
            throw new IOException("store " + dir + " refuses writes after a failure; reopen it", failure);
        }
    }

    private static void await(Future<?> future, String what) throws IOException {
        try {
            future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + what);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException) {
                throw (IOException) cause;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IOException(what + " failed", cause);
        }
    }

    private static IOException chain(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** Daemon threads for flushes and compactions, at {@code priority}; see {@link DaoOptions#backgroundPriority}. */
    private static java.util.concurrent.ThreadFactory background(String name, BackgroundPriority priority) {
        return runnable -> {
            Thread thread = new Thread(() -> {
                priority.applyToCurrentThread();
                runnable.run();
            }, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public String toString() {
        return "LsmDao{" + dir + '}';
    }
}
