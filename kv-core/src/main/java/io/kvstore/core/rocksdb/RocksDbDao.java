package io.kvstore.core.rocksdb;

import io.kvstore.core.Bytes;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import io.kvstore.core.SyncPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.NoSuchElementException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.WriteOptions;

/**
 * The {@link Dao} contract on RocksDB, so every figure of our engine is compared with RocksDB
 * measured in the same run. Configured as one would for this workload: a Bloom filter of the same
 * bits per key, a 64 MiB LRU block cache, the write buffer at the flush threshold, the WAL on and
 * synced per {@link SyncPolicy}.
 *
 * <p>Values are stored as {@code [int64 timestamp][1 byte: 0 value, 1 tombstone][value bytes]}.
 * "Newest timestamp wins" needs the stored version before each write: a read-modify-write under one
 * of 64 striped locks (by key hash), the price RocksDB pays here for the replication contract.
 */
public final class RocksDbDao implements Dao {
    private static final int STRIPES = 64;
    private static final long BLOCK_CACHE_BYTES = 64L << 20;

    static {
        RocksDB.loadLibrary();
    }

    private final RocksDB db;
    private final Options options;
    private final LRUCache cache;
    private final BloomFilter filter;
    private final WriteOptions writeOptions;
    private final ReadOptions readOptions;
    private final Object[] stripes = new Object[STRIPES];
    private final String path;
    private volatile boolean closed;

    private RocksDbDao(DaoOptions daoOptions) throws IOException {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
        Files.createDirectories(daoOptions.dataDirectory());
        this.path = daoOptions.dataDirectory().toAbsolutePath().toString();
        this.cache = new LRUCache(BLOCK_CACHE_BYTES);
        this.filter = new BloomFilter(Math.max(1, daoOptions.bloomBitsPerKey()), false);
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(cache)
                .setBlockSize(daoOptions.blockSizeBytes())
                .setCacheIndexAndFilterBlocks(true)
                .setPinL0FilterAndIndexBlocksInCache(true);
        if (daoOptions.bloomBitsPerKey() > 0) {
            table.setFilterPolicy(filter);
        }
        this.options = new Options()
                .setCreateIfMissing(true)
                .setWriteBufferSize(Math.max(64 << 10, daoOptions.flushThresholdBytes()))
                .setMaxWriteBufferNumber(daoOptions.maxFrozenMemtables() + 1)
                .setLevel0FileNumCompactionTrigger(daoOptions.compactionTrigger())
                .setMaxBackgroundJobs(2)
                .setTableFormatConfig(table);
        this.writeOptions = new WriteOptions().setSync(daoOptions.syncPolicy() == SyncPolicy.EVERY_WRITE);
        this.readOptions = new ReadOptions();
        try {
            this.db = RocksDB.open(options, path);
        } catch (RocksDBException e) {
            closeNatives();
            String message = String.valueOf(e.getMessage());
            if (message.contains("lock")) {
                throw new IOException("store directory " + path + " is already open (RocksDB LOCK held): " + message, e);
            }
            throw new IOException("cannot open RocksDB store in " + path + ": " + message, e);
        }
    }

    /** Opens (or creates) a RocksDB store in {@code options.dataDirectory()}. */
    public static RocksDbDao open(DaoOptions options) throws IOException {
        return new RocksDbDao(options);
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        checkOpen();
        try {
            return decode(key, db.get(readOptions, key));
        } catch (RocksDBException e) {
            throw new IOException("RocksDB get of " + Bytes.toDebugString(key) + " in " + path + " failed", e);
        }
    }

    @Override
    public void upsert(Entry entry) throws IOException {
        checkOpen();
        byte[] key = entry.key();
        byte[] encoded = encode(entry);
        synchronized (stripes[(Arrays.hashCode(key) & 0x7FFFFFFF) % STRIPES]) {
            try {
                byte[] stored = db.get(readOptions, key);
                if (stored != null && ByteBuffer.wrap(stored).getLong() > entry.timestamp()) {
                    return; // a newer version is already there
                }
                db.put(writeOptions, key, encoded);
            } catch (RocksDBException e) {
                throw new IOException("RocksDB put of " + Bytes.toDebugString(key) + " in " + path + " failed", e);
            }
        }
    }

    @Override
    public CloseableIterator<Entry> range(byte[] from, byte[] to) throws IOException {
        checkOpen();
        ReadOptions rangeOptions = new ReadOptions().setSnapshot(db.getSnapshot());
        Slice upper = to == null ? null : new Slice(to);
        if (upper != null) {
            rangeOptions.setIterateUpperBound(upper);
        }
        RocksIterator it = db.newIterator(rangeOptions);
        if (from == null) {
            it.seekToFirst();
        } else {
            it.seek(from);
        }
        return new CloseableIterator<>() {
            private boolean done;

            @Override
            public boolean hasNext() {
                return !done && it.isValid();
            }

            @Override
            public Entry next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                byte[] key = it.key();
                Entry e = decode(key, it.value());
                it.next();
                return e;
            }

            @Override
            public void close() {
                if (!done) {
                    done = true;
                    it.close();
                    db.releaseSnapshot(rangeOptions.snapshot());
                    rangeOptions.close();
                    if (upper != null) {
                        upper.close();
                    }
                }
            }
        };
    }

    @Override
    public void flush() throws IOException {
        checkOpen();
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush);
        } catch (RocksDBException e) {
            throw new IOException("RocksDB flush of " + path + " failed", e);
        }
    }

    @Override
    public void compact() throws IOException {
        checkOpen();
        try {
            db.compactRange();
        } catch (RocksDBException e) {
            throw new IOException("RocksDB compaction of " + path + " failed", e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            db.syncWal();
            db.closeE();
        } catch (RocksDBException e) {
            throw new IOException("closing RocksDB store " + path + " failed", e);
        } finally {
            closeNatives();
        }
    }

    private void closeNatives() {
        if (writeOptions != null) {
            writeOptions.close();
        }
        if (readOptions != null) {
            readOptions.close();
        }
        if (options != null) {
            options.close();
        }
        filter.close();
        cache.close();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("store " + path + " is closed");
        }
    }

    private static byte[] encode(Entry entry) {
        byte[] value = entry.value();
        ByteBuffer b = ByteBuffer.allocate(9 + (value == null ? 0 : value.length));
        b.putLong(entry.timestamp()).put((byte) (value == null ? 1 : 0));
        if (value != null) {
            b.put(value);
        }
        return b.array();
    }

    private static Entry decode(byte[] key, byte[] stored) {
        if (stored == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(stored);
        long timestamp = b.getLong();
        if (b.get() == 1) {
            return Entry.tombstone(key, timestamp);
        }
        byte[] value = new byte[b.remaining()];
        b.get(value);
        return Entry.value(key, value, timestamp);
    }
}
