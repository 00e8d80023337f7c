package io.kvstore.core.internal.lsm;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.CompactionStyle;
import io.kvstore.core.CorruptionException;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.DaoStats;
import io.kvstore.core.DiskFailurePolicy;
import io.kvstore.core.DiskSpace;
import io.kvstore.core.Entry;
import io.kvstore.core.InsufficientStorageException;
import io.kvstore.core.KeyFilter;
import io.kvstore.core.QuarantinedInterval;
import io.kvstore.core.ScrubReport;
import io.kvstore.core.StoreHealth;
import io.kvstore.core.UnavailableIntervalException;
import io.kvstore.core.internal.table.BlockCache;
import io.kvstore.core.internal.table.SsTable;
import io.kvstore.core.internal.util.MergeIterator;
import io.kvstore.core.internal.util.SortedBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * kvstore's own log-structured merge-tree engine: a facade over its parts, named as leveldb names
 * them.
 *
 * <p>A write goes through the {@link WriteController}: to the write-ahead log, then into the active
 * memtable. A memtable past {@link DaoOptions#flushThresholdBytes()} is frozen and the {@link Flusher}
 * writes it to a table while writes continue in a fresh one; writers wait only when
 * {@link DaoOptions#maxFrozenMemtables()} frozen memtables are already queued, or, under leveled
 * compaction, while level 0 piles up. The {@link Compactor} merges tables into levels sized from the
 * data (see {@link LeveledCompactionPicker}), or runs of similar-sized tables (see
 * {@link CompactionPicker}). The {@link VersionSet} records
 * the live tables and the oldest log still needed in a manifest replaced atomically, so a crash at any
 * instant leaves a store that {@link Recovery} reopens with every acknowledged write.
 *
 * <p>Reads take the current {@link Version} without locking. A point read consults memtables, then
 * tables newest first, skipping tables by key range, Bloom filter and timestamp range. A range read
 * merges a snapshot: memtable versions up to a sequence number, the level 0 tables that meet its
 * range, and each deeper level as one source ({@link LevelIterator}), all kept alive by reference
 * counts until the iterator is closed. Values past their expiry read as tombstones of their timestamps.
 *
 * <p>A table found damaged by any read (a failed checksum, or a block the device cannot read) is
 * quarantined ({@link Quarantine}) and its key interval refused from then on; under
 * {@link DiskFailurePolicy#STOP} the store stops serving at the first disk error instead.
 */
public final class LsmDao implements Dao {
    private static final Logger LOG = LoggerFactory.getLogger(LsmDao.class);
    /** Largest accepted key; keys are also stored in the block index. */
    public static final int MAX_KEY_BYTES = 16 << 20;
    /** Largest accepted value, so that any data block stays under 1 GiB. */
    public static final int MAX_VALUE_BYTES = 512 << 20;

    private final DaoOptions options;
    private final Path dir;
    private final DirectoryLock lock;
    private final StoreState state;
    private final VersionSet versions;
    private final Flusher flusher;
    private final WriteController writes;
    private final Compactor compactor;
    private final DaoStats stats;
    private final ResidencyPolicy residency;
    private final BlockCache blocks;
    private final FreeSpaceFloor floor;
    private final Quarantine quarantine;
    private final Scrubber scrubber;
    /** Null under size-tiered compaction, which ingests through writes. */
    private final Ingestion ingestion;
    /** The disk error that stopped the store under {@link DiskFailurePolicy#STOP}, or null. */
    private volatile IOException stoppedBy;
    private final AtomicBoolean closeStarted = new AtomicBoolean();

    private LsmDao(DaoOptions options, BlockCache blocks, DirectoryLock lock, Quarantine quarantine,
                   Recovery.Recovered recovered) {
        this.options = options;
        this.blocks = blocks;
        this.dir = options.dataDirectory();
        this.lock = lock;
        this.state = new StoreState(dir, new SpaceLedger(options.storage(), dir, options.minFreeBytes()));
        this.versions = new VersionSet(options.storage(), dir, recovered.initial(), recovered.nextFileNumber(),
                options.compactionStyle() == CompactionStyle.LEVELED);
        this.stats = recovered.stats();
        this.flusher = new Flusher(options, versions, blocks, state, stats, this::scheduleCompaction);
        this.writes = new WriteController(options, recovered.wal(), versions, state, stats, flusher,
                recovered.lastSequence());
        this.quarantine = quarantine;
        this.compactor = new Compactor(options, versions, blocks, state, stats, writes, e -> tableFailed(e) != null);
        this.ingestion = options.compactionStyle() == CompactionStyle.LEVELED
                ? new Ingestion(options, versions, blocks, state, compactor::running) : null;
        this.scrubber = new Scrubber(options, versions, state, (table, damage) -> tableFailed(damage));
        this.residency = new ResidencyPolicy(() -> versions.current().tables);
        this.floor = new FreeSpaceFloor(options.storage(), dir, options.minFreeBytes(), state);
    }

    /**
     * Opens (creating if needed) the store in {@code options.dataDirectory()}, replaying logs newer
     * than the manifest. Fails with an {@link IOException} if another open store holds the directory,
     * or if a log or the manifest is corrupt (a torn log tail is not corruption: it is cut off); a
     * damaged table is quarantined and its key interval refused instead.
     */
    public static LsmDao open(DaoOptions options) throws IOException {
        Path dir = options.dataDirectory();
        options.storage().createDirectories(dir);
        DirectoryLock lock = DirectoryLock.acquire(options.storage(), dir);
        try {
            BlockCache blocks = BlockCache.ofCapacity(options.blockCacheBytes());
            Quarantine quarantine = Quarantine.load(options.storage(), dir);
            LsmDao dao = new LsmDao(options, blocks, lock, quarantine, Recovery.recover(options, blocks, quarantine));
            for (int i = dao.versions.current().frozen.length; i > 0; i--) {
                dao.flusher.schedule(); // logs replayed into memory on a full disk: flushed once there is room
            }
            dao.scheduleCompaction();
            dao.scrubber.start();
            return dao;
        } catch (IOException | RuntimeException | Error e) {
            lock.close();
            throw e;
        }
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        Objects.requireNonNull(key, "key");
        state.ensureOpen();
        ensureServing();
        quarantine.checkKey(key);
        return visible(lookup(key, false).found());
    }

    /**
     * Answers on the calling thread when every table the read may touch was in memory at the last
     * residency check (see {@link ResidencyPolicy}), else on {@code mayBlock}. A page evicted since
     * that check is the one way such a read can still wait for the disk.
     */
    @Override
    public CompletableFuture<Entry> getAsync(byte[] key, Executor mayBlock) {
        PointRead read;
        try {
            Objects.requireNonNull(key, "key");
            state.ensureOpen();
            ensureServing();
            quarantine.checkKey(key);
            read = lookup(key, true);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        residency.scheduleCheck(mayBlock);
        return read.needsDisk() ? Dao.super.getAsync(key, mayBlock)
                : CompletableFuture.completedFuture(visible(read.found()));
    }

    /** {@code found} as a read sees it now: an expired value reads as a tombstone of its timestamp. */
    private Entry visible(Entry found) {
        return found == null || !found.expires() ? found : found.asOf(options.clock().getAsLong());
    }

    /**
     * The visible version of {@code key}; with {@code mustNotBlock}, {@link PointRead#NEEDS_DISK}
     * instead of consulting a table the residency policy does not let such a read touch.
     */
    private PointRead lookup(byte[] key, boolean mustNotBlock) throws IOException {
        Version v = versions.current();
        Entry best = v.active.get(key);
        for (Memtable memtable : v.frozen) {
            if (best == null || memtable.maxTimestamp() >= best.timestamp()) {
                best = Entry.newerOf(best, memtable.get(key));
            }
        }
        long hash = 0;
        boolean hashed = false;
        for (int start = 0; start < v.tables.length; start = v.runEnd(start)) {
            // Of each run (a level 0 table, or a deeper level in key order) only a table spanning the key matters,
            // and only if it may hold a version that wins over the best found so far.
            int at = v.tableSpanning(start, key);
            if (at < 0) {
                continue;
            }
            SsTable table = v.tables[at];
            if (best == null || table.maxTimestamp() >= best.timestamp()) {
                if (mustNotBlock && !residency.mayRead(table)) {
                    return PointRead.NEEDS_DISK;
                }
                if (!hashed) {
                    hash = SsTable.hash(key);
                    hashed = true;
                }
                try {
                    best = Entry.newerOf(best, table.get(key, hash, stats));
                } catch (IOException e) {
                    throw damaged(e);
                }
            }
        }
        return PointRead.of(best);
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        checkSizes(entry);
        ensureServing();
        floor.check();
        try {
            writes.upsert(entry);
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    /**
     * Under leveled compaction, writes {@code entries} as tables placed straight into the levels (see
     * {@link Ingestion}), forced to the disk with the manifest that lists them before it returns; under
     * size-tiered compaction, upserts them.
     */
    @Override
    public void ingest(List<Entry> entries) throws IOException {
        if (ingestion == null) {
            Dao.super.ingest(entries);
            return;
        }
        SortedBatch.requireStrictlyIncreasing(entries);
        for (Entry entry : entries) {
            checkSizes(entry);
        }
        if (entries.isEmpty()) {
            return;
        }
        state.ensureOpen();
        ensureServing();
        floor.check();
        try {
            ingestion.ingest(entries);
        } catch (IOException e) {
            throw writeFailed(e);
        }
        scheduleCompaction();
    }

    /** {@code e}, which failed a write; under {@link DiskFailurePolicy#STOP} a disk error stops the store first. */
    private IOException writeFailed(IOException e) {
        if (options.diskFailurePolicy() == DiskFailurePolicy.STOP && stoppedBy == null && !state.isClosed()
                && !(e instanceof InsufficientStorageException) && !(e instanceof InterruptedIOException)) {
            stoppedBy = e;
        }
        return e;
    }

    /**
     * Writes on the calling thread when the log is not synced per write and the writers' lock comes
     * free within a short spin with room in the active memtable: an append to the log in the OS page
     * cache and a memtable insert (as Redis appends to its log from its event loop). A write that would
     * switch the memtable, which may wait for flushes, or wait for a sync or another writer, runs on
     * {@code mayBlock}.
     */
    @Override
    public CompletableFuture<Void> upsertAsync(Entry entry, Executor mayBlock) {
        try {
            checkSizes(entry);
            ensureServing();
            floor.check();
            if (writes.tryUpsertNow(entry)) {
                return CompletableFuture.completedFuture(null);
            }
        } catch (IOException e) {
            return CompletableFuture.failedFuture(writeFailed(e));
        } catch (RuntimeException e) {
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

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        return read(from, to, true);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        return read(from, to, false);
    }

    /** The entries of {@code [from, to)} in a snapshot; {@code fillCache}: tables' blocks enter the block cache. */
    private CloseableIterator<Entry> read(byte[] from, byte[] to, boolean fillCache) throws IOException {
        state.ensureOpen();
        ensureServing();
        quarantine.checkRange(from, to);
        VersionSet.Snapshot snapshot = versions.retainCurrent(writes::visibleSequence);
        Version v = snapshot.version();
        long sequence = snapshot.sequence();
        try {
            List<CloseableIterator<Entry>> sources = new ArrayList<>(1 + v.frozen.length + v.tables.length);
            sources.add(v.active.iterator(from, to, sequence));
            for (Memtable memtable : v.frozen) {
                sources.add(memtable.iterator(from, to, sequence));
            }
            SsTable[] tables = v.tables;
            for (int i = 0, end; i < tables.length; i = end) {
                end = v.runEnd(i);
                if (v.levels[i] == 0) {
                    if (tables[i].overlaps(from, to)) {
                        sources.add(LevelIterator.tableRange(tables[i], from, to, fillCache));
                    }
                    continue;
                }
                sources.add(new LevelIterator(tables, i, end, from, to, fillCache));
            }
            return new RangeIterator(new MergeIterator(sources), v.tables, options.clock().getAsLong(), this::damaged);
        } catch (RuntimeException e) {
            VersionSet.release(v.tables);
            if (e instanceof UncheckedIOException failed) {
                throw damaged(failed.getCause());
            }
            throw e;
        }
    }

    @Override
    public void flush() throws IOException {
        writes.freezeActive();
        flusher.awaitQueued();
        IOException failure = state.failure();
        if (failure != null) {
            throw new IOException("flush of " + dir + " failed", failure);
        }
    }

    @Override
    public void compact() throws IOException {
        flush();
        try {
            compactor.compactAll();
        } catch (IOException e) {
            throw damaged(e);
        }
    }

    /**
     * Flushes, then rewrites every table through one compaction that leaves out the keys {@code keep}
     * rejects, at the compaction rate limit. Writes go on meanwhile into the memtables, which the
     * rewrite does not touch.
     */
    @Override
    public long cleanup(KeyFilter keep) throws IOException {
        Objects.requireNonNull(keep, "keep");
        flush();
        try {
            return compactor.cleanup(keep);
        } catch (IOException e) {
            throw damaged(e);
        }
    }

    @Override
    public void close() throws IOException {
        if (!closeStarted.compareAndSet(false, true)) {
            return;
        }
        IOException failure = null;
        try {
            if (state.failure() == null) {
                flush();
            }
        } catch (IOException e) {
            failure = e;
        }
        writes.closeWrites();
        compactor.shutdown();
        flusher.shutdown();
        scrubber.shutdown();
        compactor.shutdownAndWait();
        flusher.shutdownAndWait();
        scrubber.shutdownAndWait();
        try {
            writes.closeLog();
        } catch (IOException e) {
            failure = chain(failure, e);
        }
        IOException released = versions.releaseAll();
        if (released != null) {
            failure = chain(failure, released);
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

    private void scheduleCompaction() {
        compactor.schedule();
    }

    @Override
    public StoreHealth health() {
        IOException stopped = stoppedBy;
        return new StoreHealth(quarantine.intervals(), stopped == null ? null : stopped.getMessage(),
                scrubber.latest(), scrubber.scrubbedBytes());
    }

    /** Runs on the calling thread; a background pass may run at the same time, each reading on its own. */
    @Override
    public ScrubReport scrub(long bytesPerSecond) throws IOException {
        state.ensureOpen();
        return scrubber.scrub(bytesPerSecond);
    }

    @Override
    public int healInterval(byte[] from, byte[] to) throws IOException {
        state.ensureOpen();
        return quarantine.heal(from, to);
    }

    /**
     * Fails under {@link DiskFailurePolicy#STOP} once a disk error was met: a damaged table, or a failed
     * write, flush or fsync that stopped writes.
     */
    private void ensureServing() throws IOException {
        if (options.diskFailurePolicy() != DiskFailurePolicy.STOP) {
            return;
        }
        IOException cause = stoppedBy;
        if (cause == null && state.failure() != null) {
            stoppedBy = cause = state.failure();
        }
        if (cause != null) {
            throw new IOException("store " + dir + " stopped serving after a disk error (disk failure policy STOP);"
                    + " replace the disk or restore the store, then reopen it", cause);
        }
    }

    /**
     * What a read that failed with {@code failure} throws: if the failure is damage in a live table, the
     * table is quarantined and the read refused as in its interval ({@link UnavailableIntervalException},
     * caused by the damage); any other failure as it is.
     */
    private IOException damaged(IOException failure) {
        if (failure instanceof UnavailableIntervalException) {
            return failure;
        }
        QuarantinedInterval interval = tableFailed(failure);
        if (interval == null) {
            return failure;
        }
        UnavailableIntervalException refused = new UnavailableIntervalException(interval);
        refused.initCause(failure);
        return refused;
    }

    /**
     * Quarantines the live table {@code failure} (or a cause of it) names as damaged; returns the
     * interval now refused for it, or null if it names none (or the quarantine itself failed, which is
     * logged). Under {@link DiskFailurePolicy#STOP} the store stops serving.
     */
    private QuarantinedInterval tableFailed(IOException failure) {
        CorruptionException damage = null;
        for (Throwable t = failure; t != null && damage == null; t = t.getCause()) {
            if (t instanceof CorruptionException c && !(t instanceof UnavailableIntervalException)) {
                damage = c;
            }
        }
        if (damage == null || damage.file() == null) {
            return null;
        }
        SsTable table = null;
        for (SsTable live : versions.current().tables) {
            if (live.path().equals(damage.file())) {
                table = live;
            }
        }
        if (table == null) {
            // Quarantined by another read that met the damage first, or compacted away.
            return quarantine.intervalOf(FileNames.number(damage.file().getFileName().toString(),
                    FileNames.TABLE_SUFFIX));
        }
        if (options.diskFailurePolicy() == DiskFailurePolicy.STOP && stoppedBy == null) {
            stoppedBy = damage;
        }
        try {
            return quarantine.isolate(versions, table, damage, options.clock().getAsLong());
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
            LOG.error("Could not quarantine {}", table, e);
            return null;
        }
    }

    /** Compacts the {@code count} oldest tables now, as a background compaction would (for tests). */
    void compactOldest(int count) throws IOException {
        compactor.compactOldest(count, () -> { });
    }

    /** {@link #compactOldest(int)}, running {@code afterMerge} between each merge and its switch (for tests). */
    void compactOldest(int count, Runnable afterMerge) throws IOException {
        compactor.compactOldest(count, afterMerge);
    }

    /** Waits until the next log file, made ahead in the background, is made or failed (for tests). */
    void awaitNextLog() {
        writes.awaitNextLog();
    }

    /** Waits for the background compactions queued so far (for tests). */
    void awaitCompactions() throws IOException {
        compactor.awaitQueued();
    }

    /** Bytes written by flushes since opening (the user data that reached tables). */
    long flushedBytes() {
        return flusher.flushedBytes();
    }

    /** Bytes written by compactions since opening. */
    long compactedBytes() {
        return compactor.compactedBytes();
    }

    /**
     * Reads the current version only (no lock, no I/O); a compaction is pending when the configured
     * policy would pick one now.
     */
    @Override
    public DaoProperties properties() {
        Version v = versions.current();
        long memtableBytes = v.active.sizeBytes();
        for (Memtable memtable : v.frozen) {
            memtableBytes += memtable.sizeBytes();
        }
        long tableBytes = 0;
        long tableEntries = 0;
        int deepest = 0;
        for (int i = 0; i < v.tables.length; i++) {
            tableBytes += v.tables[i].fileSize();
            tableEntries += v.tables[i].entryCount();
            deepest = Math.max(deepest, v.levels[i]);
        }
        Integer[] perLevel = new Integer[v.tables.length == 0 ? 1 : deepest + 1];
        Arrays.fill(perLevel, 0);
        for (int level : v.levels) {
            perLevel[level]++;
        }
        int pending = compactor.pick(v) == null ? 0 : 1;
        long debt = options.compactionStyle() == CompactionStyle.LEVELED
                ? CompactionDebt.of(v, options.compactionTrigger(), options.levelBaseBytes()) : -1;
        return DaoProperties.of(memtableBytes, v.frozen.length, tableBytes, tableEntries, List.of(perLevel), pending, debt,
                stats, blocks.properties());
    }

    @Override
    public DiskSpace diskSpace() {
        return floor.current();
    }

    /** Memtables frozen and waiting to be flushed (for tests). */
    int frozenMemtables() {
        return versions.current().frozen.length;
    }

    /** The cache of decompressed blocks shared by this store's tables (for tests). */
    BlockCache blockCache() {
        return blocks;
    }

    /** Live tables, newest first (for tests and measurements). */
    SsTable[] liveTables() {
        return versions.current().tables.clone();
    }

    /** The level of each of {@link #liveTables()} (for tests). */
    int[] liveLevels() {
        return versions.current().levels.clone();
    }

    /** The store's versions (for tests that wait for a state of them). */
    VersionSet versions() {
        return versions;
    }

    private static IOException chain(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public String toString() {
        return "LsmDao{" + dir + '}';
    }
}
