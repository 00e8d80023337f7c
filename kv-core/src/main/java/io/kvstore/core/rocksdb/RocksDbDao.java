package io.kvstore.core.rocksdb;

import io.kvstore.core.BlockCacheProperties;
import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.DaoProperties;
import io.kvstore.core.Entry;
import io.kvstore.core.KeyFilter;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A {@link Dao} on RocksDB (rocksdbjni), the reference our own LSM engine is measured against.
 *
 * <p>Each key maps to one RocksDB value carrying timestamp, tombstone flag and user value (layout in
 * {@link StoredValue}). Which version wins ({@link Entry#compareVersions}) is enforced by a
 * read-modify-write per key under a striped lock: the writer reads the stored 9-byte header (skipped
 * when the memtable and table Bloom filters say the key is absent) and writes only if it wins, reading
 * the whole stored value only on a timestamp tie. RocksJava cannot run a Java merge operator, and the
 * built-in {@code max} operator knows nothing of tombstones, so the read is the price of the rule.
 *
 * <p>Tuning and option mapping are described in {@link RocksResources}. A second open of a directory
 * held by another store fails with an {@link IOException} naming the directory.
 */
public final class RocksDbDao implements Dao {
    private static final Logger log = LoggerFactory.getLogger(RocksDbDao.class);
    /** Power of two; enough stripes that two writers rarely contend on different keys. */
    private static final int WRITE_STRIPES = 1024;

    static {
        RocksDB.loadLibrary();
    }

    private final Path directory;
    /** Values expired by this clock read as tombstones of their timestamps. */
    private final LongSupplier clock;
    private final RocksResources resources;
    private final RocksDB db;
    private final Object[] writeStripes = new Object[WRITE_STRIPES];
    /** Read side held by every operation, write side by close: no native call outlives the handle. */
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final Set<RocksRangeIterator> openIterators = ConcurrentHashMap.newKeySet();
    private boolean closed;

    private RocksDbDao(Path directory, RocksResources resources, RocksDB db, LongSupplier clock) {
        this.directory = directory;
        this.clock = clock;
        this.resources = resources;
        this.db = db;
        for (int i = 0; i < WRITE_STRIPES; i++) {
            writeStripes[i] = new Object();
        }
    }

    /**
     * Opens (creating if needed) the store in {@code options.dataDirectory()}.
     *
     * @throws IOException if the directory cannot be created, is held by another open store, or
     *                     RocksDB fails to open it
     */
    public static RocksDbDao open(DaoOptions options) throws IOException {
        Objects.requireNonNull(options, "options");
        Path directory = options.dataDirectory().toAbsolutePath();
        Files.createDirectories(directory);
        RocksResources resources = new RocksResources(options);
        try {
            RocksDB db = RocksDB.open(resources.options, directory.toString());
            log.debug("Opened RocksDB store {} with {}", directory, options);
            return new RocksDbDao(directory, resources, db, options.clock());
        } catch (RocksDBException e) {
            resources.close();
            if (isLockFailure(e)) {
                throw new IOException("RocksDB store " + directory
                        + " is already open (its LOCK file is held by another store in this or another process)", e);
            }
            throw new IOException("Cannot open RocksDB store " + directory + ": " + e.getMessage(), e);
        }
    }

    private static boolean isLockFailure(RocksDBException e) {
        Status status = e.getStatus();
        String message = e.getMessage() == null ? "" : e.getMessage();
        return (status == null || status.getCode() == Status.Code.IOError) && message.contains("LOCK");
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        Objects.requireNonNull(key, "key");
        Lock lock = enter();
        try {
            byte[] stored = db.get(key);
            if (stored == null) {
                return null;
            }
            Entry entry = StoredValue.decode(key, stored);
            return entry.expires() ? entry.asOf(clock.getAsLong()) : entry;
        } catch (RocksDBException e) {
            throw failure("get", key, e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        Objects.requireNonNull(entry, "entry");
        byte[] key = entry.key();
        byte[] encoded = StoredValue.encode(entry);
        Lock lock = enter();
        try {
            synchronized (writeStripes[stripe(key)]) {
                if (winsOverStored(entry)) {
                    db.put(resources.writeOptions, key, encoded);
                }
            }
        } catch (RocksDBException e) {
            throw failure("upsert", key, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether {@code entry} wins over the stored version of its key ({@link Entry#compareVersions}).
     * REQUIRES: the stripe of the key is held, so no other write of it can interleave. The header
     * decides unless the timestamps are equal; only then is the stored value read whole.
     */
    private boolean winsOverStored(Entry entry) throws RocksDBException {
        byte[] key = entry.key();
        if (!db.keyMayExist(key, null)) {
            return true;
        }
        byte[] header = new byte[StoredValue.HEADER_BYTES];
        int storedLength = db.get(key, header);
        if (storedLength == RocksDB.NOT_FOUND) {
            return true;
        }
        StoredValue.checkHeader(key, header, storedLength);
        long storedTimestamp = StoredValue.timestamp(header);
        if (entry.timestamp() != storedTimestamp) {
            return entry.timestamp() > storedTimestamp;
        }
        byte[] stored = db.get(key);
        return stored == null || Entry.compareVersions(entry, StoredValue.decode(key, stored)) >= 0;
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        return read(from, to, true);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        return read(from, to, false);
    }

    private CloseableIterator<Entry> read(byte[] from, byte[] to, boolean fillCache) throws IOException {
        Lock lock = enter();
        try {
            if (from != null && to != null && Bytes.compare(from, to) >= 0) {
                return CloseableIterator.empty();
            }
            RocksRangeIterator iterator = new RocksRangeIterator(db, from, to, fillCache, clock.getAsLong(), openIterators::remove);
            openIterators.add(iterator);
            return iterator;
        } finally {
            lock.unlock();
        }
    }

    /**
     * RocksDB's own properties for the sizes, levels, pending (due or running) compactions, and the flushes and
     * compactions of its compaction statistics ({@code rocksdb.cfstats}, kept in GiB to six decimals,
     * so byte counts are exact to about 1 KiB; its level 0 row, counted here as flushes, also holds
     * the rare level 0 to level 0 compaction). The other counters need RocksDB statistics, which this
     * comparison engine leaves off, so they are unknown.
     */
    @Override
    public DaoProperties properties() {
        Lock lock = lifecycle.readLock();
        lock.lock();
        try {
            if (closed) {
                return DaoProperties.UNKNOWN;
            }
            List<Integer> levels = new ArrayList<>();
            for (int level = 0; level < db.numberLevels(); level++) {
                levels.add(Integer.parseInt(db.getProperty("rocksdb.num-files-at-level" + level).trim()));
            }
            Map<String, String> stats = db.getMapProperty("rocksdb.cfstats");
            long flushes = (long) statistic(stats, "compaction.L0.CompCount");
            long flushedBytes = gibToBytes(statistic(stats, "compaction.L0.WriteGB"));
            long compactions = (long) statistic(stats, "compaction.Sum.CompCount") - flushes;
            long compactedBytes = gibToBytes(statistic(stats, "compaction.Sum.WriteGB")) - flushedBytes;
            return new DaoProperties(db.getLongProperty("rocksdb.cur-size-all-mem-tables"),
                    (int) db.getLongProperty("rocksdb.num-immutable-mem-table"),
                    db.getLongProperty("rocksdb.live-sst-files-size"), db.getLongProperty("rocksdb.estimate-num-keys"), levels,
                    // As LsmDao counts it: a compaction running still counts until it is installed.
                    (int) (db.getLongProperty("rocksdb.compaction-pending")
                            + db.getLongProperty("rocksdb.num-running-compactions")),
                    db.getLongProperty("rocksdb.estimate-pending-compaction-bytes"), flushes, flushedBytes, compactions,
                    Math.max(0, compactedBytes), db.getLongProperty("rocksdb.background-errors"), -1, -1, -1, -1,
                    blockCache());
        } catch (RocksDBException e) {
            log.warn("RocksDB properties of {} unavailable", directory, e);
            return DaoProperties.UNKNOWN;
        } finally {
            lock.unlock();
        }
    }

    /** The LRU cache's size and bound; its hits, misses and evictions need RocksDB statistics, so are unknown. */
    private BlockCacheProperties blockCache() throws RocksDBException {
        return new BlockCacheProperties(-1, -1, -1, db.getLongProperty("rocksdb.block-cache-usage"),
                db.getLongProperty("rocksdb.block-cache-capacity"));
    }

    /** One value of RocksDB's compaction statistics; 0 when absent (no flush or compaction yet). */
    private static double statistic(Map<String, String> stats, String name) {
        String value = stats.get(name);
        return value == null ? 0 : Double.parseDouble(value);
    }

    private static long gibToBytes(double gib) {
        return Math.round(gib * (1L << 30));
    }

    @Override
    public void flush() throws IOException {
        Lock lock = enter();
        try (FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flushOptions);
        } catch (RocksDBException e) {
            throw new IOException("RocksDB flush failed in " + directory, e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void compact() throws IOException {
        Lock lock = enter();
        try {
            db.compactRange();
        } catch (RocksDBException e) {
            throw new IOException("RocksDB compaction failed in " + directory, e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Walks the store on an iterator's snapshot and deletes each key {@code keep} rejects, under the
     * key's write stripe and only if the stored version is still the one the walk saw, so that a write
     * made meanwhile stays; then compacts the whole store so the deleted entries leave the files.
     * RocksDB's own deletion markers are not versions of ours: a later write of the key is stored as a
     * first write is. ({@code DeleteFilesInRange} would be cheaper, but the keys to remove are spread
     * by hash across the whole key space, so no file lies wholly inside a range of them.)
     */
    @Override
    public long cleanup(KeyFilter keep) throws IOException {
        Objects.requireNonNull(keep, "keep");
        Lock lock = enter();
        long dropped = 0;
        byte[] key = null;
        try (RocksIterator iterator = db.newIterator()) {
            for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
                key = iterator.key();
                if (!keep.keeps(key) && deleteIfUnchanged(key, iterator.value())) {
                    dropped++;
                }
            }
            iterator.status();
            db.compactRange();
            return dropped;
        } catch (RocksDBException e) {
            throw key == null ? new IOException("RocksDB cleanup failed in " + directory, e) : failure("cleanup", key, e);
        } finally {
            lock.unlock();
        }
    }

    private boolean deleteIfUnchanged(byte[] key, byte[] seen) throws RocksDBException {
        synchronized (writeStripes[stripe(key)]) {
            byte[] stored = db.get(key);
            if (stored == null || !Arrays.equals(stored, seen)) {
                return false;
            }
            db.delete(resources.writeOptions, key);
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        Lock lock = lifecycle.writeLock();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            for (RocksRangeIterator iterator : openIterators.toArray(new RocksRangeIterator[0])) {
                iterator.close();
            }
            try {
                db.closeE();
            } catch (RocksDBException e) {
                throw new IOException("RocksDB close failed in " + directory, e);
            } finally {
                resources.close();
            }
            log.debug("Closed RocksDB store {}", directory);
        } finally {
            lock.unlock();
        }
    }

    private Lock enter() {
        Lock lock = lifecycle.readLock();
        lock.lock();
        if (closed) {
            lock.unlock();
            throw new IllegalStateException("RocksDbDao " + directory + " is closed");
        }
        return lock;
    }

    private static int stripe(byte[] key) {
        int h = Arrays.hashCode(key);
        h ^= h >>> 16;
        return h & (WRITE_STRIPES - 1);
    }

    private IOException failure(String operation, byte[] key, RocksDBException e) {
        return new IOException("RocksDB " + operation + " of key " + Bytes.toDebugString(key)
                + " failed in " + directory, e);
    }

    @Override
    public String toString() {
        return "RocksDbDao{" + directory + '}';
    }
}
