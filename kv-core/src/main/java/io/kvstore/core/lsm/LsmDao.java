package io.kvstore.core.lsm;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.log.WalReader;
import io.kvstore.core.log.WalWriter;
import io.kvstore.core.table.SsTable;
import io.kvstore.core.table.SsTableWriter;
import io.kvstore.core.util.MergeIterator;
import io.kvstore.core.util.XxHash64;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kvstore LSM engine: a write-ahead log and a concurrent memtable in front of immutable, block-based
 * SSTables with Bloom filters, compacted in the background by size tier. See {@link Dao} for the
 * contract and docs/FORMAT.md for the files.
 *
 * <pre>{@code
 * try (LsmDao dao = LsmDao.open(DaoOptions.defaults(Path.of("data")))) {
 *     dao.upsert(Entry.value(key, value, timestamp));
 *     Entry e = dao.get(key);
 * }
 * }</pre>
 *
 * <p>Concurrency: writes append to the log and the memtable under one lock (so the log order is the
 * memtable order), then wait for durability outside it. Reads take no lock: they pin the current
 * {@link Version}. Flushing and compaction run on their own background threads and publish a new
 * version after the manifest that lists its tables is durable.
 */
public final class LsmDao implements Dao {
    private static final Logger LOG = LoggerFactory.getLogger(LsmDao.class);
    /** Tables are cut at this size during compaction, so each one can be memory-mapped whole. */
    static final long MAX_TABLE_BYTES = 1L << 30;
    static final int MAX_KEY_BYTES = 1 << 20;
    static final int MAX_VALUE_BYTES = 256 << 20;

    private final DaoOptions options;
    private final Path dir;
    private final StoreLock lock;
    private final TieredCompactionPolicy policy;
    private final AtomicReference<Version> current = new AtomicReference<>();
    private final Object writeLock = new Object();
    /** Guards the manifest and version changes (flush, compaction, freeze). */
    private final Object versionLock = new Object();
    private final ExecutorService flusher = daemonExecutor("kv-flush");
    private final ExecutorService compactor = daemonExecutor("kv-compaction");
    private long nextFileId;
    private Future<?> lastFlush;
    private volatile IOException backgroundFailure;
    private volatile boolean closed;

    private LsmDao(DaoOptions options, StoreLock lock) {
        this.options = options;
        this.dir = options.dataDirectory();
        this.lock = lock;
        this.policy = new TieredCompactionPolicy(options.flushThresholdBytes(), options.compactionTrigger());
    }

    /**
     * Opens (or creates) the store in {@code options.dataDirectory()}: locks the directory, loads the
     * manifest, replays the write-ahead logs into a table, and starts a fresh log.
     *
     * @throws IOException if the directory is locked by another open store, or a file is corrupt
     */
    public static LsmDao open(DaoOptions options) throws IOException {
        Path dir = options.dataDirectory();
        Files.createDirectories(dir);
        StoreLock lock = StoreLock.acquire(dir);
        LsmDao dao = new LsmDao(options, lock);
        try {
            dao.recover();
            return dao;
        } catch (IOException | RuntimeException e) {
            dao.flusher.shutdownNow();
            dao.compactor.shutdownNow();
            lock.close();
            throw e;
        }
    }

    private void recover() throws IOException {
        Manifest manifest = Manifest.read(dir);
        nextFileId = manifest.nextFileId;
        List<SsTable> tables = new ArrayList<>();
        for (long id : manifest.tableIds) {
            tables.add(SsTable.open(tableFile(id), id));
        }
        TreeMap<Long, Path> logs = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                long id = fileId(name);
                nextFileId = Math.max(nextFileId, id + 1);
                if (name.endsWith(".wal")) {
                    if (id >= manifest.oldestLiveWal) {
                        logs.put(id, f);
                    } else {
                        Files.delete(f); // flushed before the crash; its deletion did not happen
                    }
                } else if ((name.endsWith(".sst") && !manifest.tableIds.contains(id)) || name.endsWith(".tmp")) {
                    LOG.info("{}: removing {} left by an interrupted flush or compaction", dir, name);
                    Files.delete(f);
                }
            }
        }
        // Replay every surviving log into one memtable and turn it into a table straight away, so the
        // store starts with an empty log whatever the size of what was replayed.
        MemTable replayed = new MemTable(null, -1);
        for (Path log : logs.values()) {
            long n = WalReader.replay(log, replayed::put);
            LOG.info("{}: replayed {} records from {}", dir, n, log.getFileName());
        }
        if (!replayed.isEmpty()) {
            long id = nextFileId++;
            tables.add(0, writeTable(id, List.of(replayed.iterator(null, null)), replayed.count(), false).get(0));
        }
        long walId = nextFileId++;
        MemTable active = new MemTable(WalWriter.create(walFile(walId), options), walId);
        new Manifest(nextFileId, walId, ids(tables)).write(dir);
        for (Path log : logs.values()) {
            Files.delete(log);
        }
        current.set(new Version(List.of(active), tables));
        LOG.info("{}: opened with {} tables", dir, tables.size());
        scheduleCompactionIfNeeded();
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        Version v = acquireVersion();
        try {
            Entry best = null;
            for (MemTable m : v.memtables) {
                if (best != null && m.maxTimestamp() <= best.timestamp()) {
                    continue; // holds nothing newer than what we have
                }
                Entry e = m.get(key);
                if (e != null && (best == null || e.timestamp() > best.timestamp())) {
                    best = e;
                }
            }
            long hash = 0;
            for (SsTable t : v.tables) {
                if (best != null && t.maxTimestamp() <= best.timestamp()) {
                    continue;
                }
                if (hash == 0) {
                    hash = XxHash64.hash(key);
                }
                Entry e = t.get(key, hash);
                if (e != null && (best == null || e.timestamp() > best.timestamp())) {
                    best = e;
                }
            }
            return best;
        } finally {
            v.release();
        }
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        checkEntry(entry);
        WalWriter wal;
        long position;
        synchronized (writeLock) {
            checkWritable();
            MemTable active = current.get().memtables.get(0);
            wal = active.wal;
            position = wal.append(entry);
            active.put(entry);
            if (active.sizeBytes() >= options.flushThresholdBytes()) {
                freeze(false);
            }
        }
        wal.awaitDurable(position);
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        checkOpen();
        Version v = acquireVersion();
        List<Iterator<Entry>> sources = new ArrayList<>();
        try {
            if (from == null || to == null || Bytes.compare(from, to) < 0) {
                for (MemTable m : v.memtables) {
                    sources.add(m.iterator(from, to));
                }
                for (SsTable t : v.tables) {
                    if ((to == null || Bytes.compare(t.minKey(), to) < 0)
                            && (from == null || Bytes.compare(t.maxKey(), from) >= 0)) {
                        sources.add(t.iterator(from, to));
                    }
                }
            }
        } catch (UncheckedIOException e) {
            v.release();
            throw e.getCause();
        }
        return new MergeIterator(sources, v::release);
    }

    @Override
    public void flush() throws IOException {
        Future<?> pending;
        synchronized (writeLock) {
            checkOpen();
            freeze(true);
            pending = lastFlush;
        }
        await(pending);
        checkBackground();
    }

    @Override
    public void compact() throws IOException {
        flush();
        await(compactor.submit(() -> {
            compactRun(true);
            return null;
        }));
        checkBackground();
    }

    @Override
    public void close() throws IOException {
        synchronized (writeLock) {
            if (closed) {
                return;
            }
        }
        try {
            flush();
        } finally {
            synchronized (writeLock) {
                closed = true;
            }
            flusher.shutdown();
            compactor.shutdown();
            awaitTermination(flusher);
            awaitTermination(compactor);
            Version v = current.get();
            for (MemTable m : v.memtables) {
                m.wal.close();
            }
            v.release();
            lock.close();
        }
    }

    /**
     * Freezes the active memtable behind a fresh one and schedules its flush, if it is non-empty
     * ({@code force}) or full. When {@code maxFrozenMemtables} already wait, waits for the flusher
     * first and then decides again: another writer may have frozen it meanwhile. Caller holds writeLock.
     */
    private void freeze(boolean force) throws IOException {
        while (true) {
            checkBackground();
            Version v = current.get();
            MemTable active = v.memtables.get(0);
            if (force ? active.isEmpty() : active.sizeBytes() < options.flushThresholdBytes()) {
                return;
            }
            if (v.memtables.size() <= options.maxFrozenMemtables()) {
                break;
            }
            try {
                writeLock.wait(1_000); // flushing is behind: writers wait for it (bounded by maxFrozenMemtables)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for a flush");
            }
        }
        MemTable fresh;
        synchronized (versionLock) {
            long walId = nextFileId++;
            fresh = new MemTable(WalWriter.create(walFile(walId), options), walId);
            Version old = current.get();
            List<MemTable> memtables = new ArrayList<>(old.memtables.size() + 1);
            memtables.add(fresh);
            memtables.addAll(old.memtables);
            install(new Version(memtables, old.tables));
        }
        lastFlush = flusher.submit(this::flushOldest);
    }

    /** Background: writes the oldest frozen memtable to a table and retires its log. */
    private void flushOldest() {
        try {
            Version v = current.get();
            MemTable frozen = v.memtables.get(v.memtables.size() - 1);
            long id;
            synchronized (versionLock) {
                id = nextFileId++;
            }
            List<SsTable> written = writeTable(id, List.of(frozen.iterator(null, null)), frozen.count(), false);
            synchronized (versionLock) {
                Version old = current.get();
                List<MemTable> memtables = new ArrayList<>(old.memtables);
                memtables.remove(frozen);
                List<SsTable> tables = new ArrayList<>(old.tables.size() + 1);
                tables.addAll(written); // empty if the memtable was
                tables.addAll(old.tables);
                long oldestLiveWal = memtables.get(memtables.size() - 1).walId;
                new Manifest(nextFileId, oldestLiveWal, ids(tables)).write(dir);
                install(new Version(memtables, tables));
            }
            frozen.wal.close();
            Files.deleteIfExists(frozen.wal.file());
            scheduleCompactionIfNeeded();
        } catch (IOException | RuntimeException e) {
            failBackground("flush", e);
        } finally {
            synchronized (writeLock) {
                writeLock.notifyAll();
            }
        }
    }

    private void scheduleCompactionIfNeeded() {
        if (!closed && policy.pick(current.get().tables) != null) {
            compactor.execute(() -> {
                try {
                    compactRun(false);
                } catch (IOException | RuntimeException e) {
                    failBackground("compaction", e);
                }
            });
        }
    }

    /**
     * Merges one run of neighbouring tables (all of them if {@code everything}); runs on the compaction
     * thread only, so the run is still in place when the result is installed.
     */
    private void compactRun(boolean everything) throws IOException {
        Version pinned = acquireVersion(); // keeps the inputs mapped while they are read
        List<SsTable> inputs;
        try {
            int[] run = everything ? new int[] {0, pinned.tables.size()} : policy.pick(pinned.tables);
            if (run == null || run[1] - run[0] < (everything ? 1 : 2)) {
                return;
            }
            inputs = new ArrayList<>(pinned.tables.subList(run[0], run[1]));
            // Tombstones may go only when nothing older exists that they could be hiding.
            boolean includesOldest = run[1] == pinned.tables.size();
            List<Iterator<Entry>> sources = new ArrayList<>();
            long expected = 0;
            for (SsTable t : inputs) {
                sources.add(t.iterator(null, null));
                expected += t.entryCount();
            }
            List<SsTable> outputs = writeTable(-1, sources, expected, includesOldest);
            synchronized (versionLock) {
                Version old = current.get();
                List<SsTable> tables = new ArrayList<>();
                boolean replaced = false;
                for (SsTable t : old.tables) {
                    if (!inputs.contains(t)) {
                        tables.add(t);
                    } else if (!replaced) {
                        tables.addAll(outputs); // the merged run takes the place of its inputs
                        replaced = true;
                    }
                }
                long oldestLiveWal = old.memtables.get(old.memtables.size() - 1).walId;
                new Manifest(nextFileId, oldestLiveWal, ids(tables)).write(dir);
                install(new Version(old.memtables, tables));
            }
            for (SsTable t : inputs) {
                t.markObsolete();
            }
            LOG.debug("{}: compacted {} tables into {}", dir, inputs.size(), outputs.size());
        } finally {
            pinned.release();
        }
        scheduleCompactionIfNeeded();
    }

    /**
     * Writes the merged entries of {@code sources} to new tables (several if past MAX_TABLE_BYTES);
     * drops tombstones when {@code dropTombstones} (nothing older exists that they could hide).
     * {@code fixedId} >= 0 names the single output; otherwise ids are allocated as needed.
     */
    private List<SsTable> writeTable(long fixedId, List<Iterator<Entry>> sources, long expectedKeys,
            boolean dropTombstones) throws IOException {
        List<SsTable> outputs = new ArrayList<>();
        SsTableWriter writer = null;
        long id = -1;
        try {
            Iterator<Entry> entries = sources.size() == 1 ? sources.get(0) : new MergeIterator(sources, () -> { });
            while (entries.hasNext()) {
                Entry e = entries.next();
                if (dropTombstones && e.isTombstone()) {
                    continue;
                }
                if (writer == null) {
                    id = fixedId >= 0 ? fixedId : allocateFileId();
                    writer = new SsTableWriter(tableFile(id), options.blockSizeBytes(), options.bloomBitsPerKey(), expectedKeys);
                }
                writer.add(e);
                if (fixedId < 0 && writer.size() >= MAX_TABLE_BYTES) {
                    outputs.add(finishTable(writer, id));
                    writer = null;
                }
            }
            if (writer != null) {
                outputs.add(finishTable(writer, id));
                writer = null;
            }
            Manifest.syncDirectory(dir);
            return outputs;
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            if (writer != null) {
                writer.close(); // deletes the partial file
            }
        }
    }

    private SsTable finishTable(SsTableWriter writer, long id) throws IOException {
        writer.finish();
        return SsTable.open(tableFile(id), id);
    }

    private long allocateFileId() {
        synchronized (versionLock) {
            return nextFileId++;
        }
    }

    private void install(Version next) {
        Version old = current.getAndSet(next);
        if (old != null) {
            old.release();
        }
    }

    private Version acquireVersion() {
        while (true) {
            Version v = current.get();
            if (v.tryAcquire()) {
                return v;
            }
        }
    }

    private void failBackground(String what, Exception e) {
        LOG.error("{}: background {} failed; the store refuses writes until reopened", dir, what, e);
        backgroundFailure = e instanceof IOException ? (IOException) e : new IOException(what + " failed", e);
    }

    private void checkBackground() throws IOException {
        IOException failure = backgroundFailure;
        if (failure != null) {
            throw new IOException("store " + dir + " failed in the background: " + failure.getMessage(), failure);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("store " + dir + " is closed");
        }
    }

    private void checkWritable() throws IOException {
        checkOpen();
        checkBackground();
    }

    private static void checkEntry(Entry entry) {
        if (entry.key().length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key of " + entry.key().length + " bytes exceeds " + MAX_KEY_BYTES);
        }
        if (entry.value() != null && entry.value().length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value of " + entry.value().length + " bytes exceeds " + MAX_VALUE_BYTES
                    + " for key " + Bytes.toDebugString(entry.key()));
        }
    }

    private static void await(Future<?> future) throws IOException {
        if (future == null) {
            return;
        }
        try {
            future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a background task");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException ? (IOException) cause : new IOException(cause);
        }
    }

    private static void awaitTermination(ExecutorService executor) {
        try {
            executor.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ExecutorService daemonExecutor(String name) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    private Path tableFile(long id) {
        return dir.resolve(String.format("%06d.sst", id));
    }

    private Path walFile(long id) {
        return dir.resolve(String.format("%06d.wal", id));
    }

    private static long fileId(String name) {
        int dot = name.indexOf('.');
        if (dot <= 0) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(0, dot));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static List<Long> ids(List<SsTable> tables) {
        List<Long> ids = new ArrayList<>(tables.size());
        for (SsTable t : tables) {
            ids.add(t.id());
        }
        return ids;
    }
}
