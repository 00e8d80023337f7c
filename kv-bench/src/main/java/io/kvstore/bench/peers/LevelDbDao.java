package io.kvstore.bench.peers;

import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DBException;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;
import org.iq80.leveldb.WriteOptions;
import org.iq80.leveldb.impl.DbImpl;
import org.iq80.leveldb.util.Slice;

/**
 * LevelDB, the pure-Java port ({@code org.iq80.leveldb}), behind our {@link io.kvstore.core.Dao}: an LSM tree
 * like ours, with LevelDB's bytewise (unsigned) key order; a range reads a LevelDB snapshot.
 *
 * <p>Durability: every write goes to LevelDB's log before its memtable; with
 * {@link io.kvstore.core.SyncPolicy#NONE} the log is not forced ({@code WriteOptions.sync(false)}), as our
 * {@code --sync none}, otherwise each write is. The port has no public flush nor a working
 * {@code compactRange(byte[], byte[])}, so {@link #flush()} and {@link #compact()} call its implementation's
 * {@code flushMemTable} and per-level {@code compactRange}, the latter over keys up to
 * {@value #COMPACTED_KEY_BYTES} bytes of {@code 0xFF} (the benchmark keys are shorter).
 */
public final class LevelDbDao extends PeerDao {
    /** LevelDB's level count. */
    private static final int LEVELS = 7;
    private static final int COMPACTED_KEY_BYTES = 64;

    private final DbImpl db;
    private final WriteOptions writeOptions;

    private LevelDbDao(DaoOptions options) throws IOException {
        super(options);
        writeOptions = new WriteOptions().sync(syncsEachWrite(options));
        Options leveldb = new Options().createIfMissing(true).cacheSize(options.blockCacheBytes())
                .compressionType(options.compression() == Compression.NONE ? CompressionType.NONE : CompressionType.SNAPPY);
        try {
            db = new DbImpl(leveldb, directory.resolve("leveldb").toFile());
        } catch (IOException | DBException e) {
            throw cannotOpen("LevelDB", e);
        }
    }

    /** Opens (creating if needed) the store in {@code options.dataDirectory()}. */
    public static LevelDbDao open(DaoOptions options) throws IOException {
        return new LevelDbDao(options);
    }

    @Override
    byte[] read(byte[] key) {
        return db.get(key);
    }

    @Override
    void write(byte[] key, byte[] stored) {
        db.put(key, stored, writeOptions);
    }

    @Override
    void remove(byte[] key) {
        db.delete(key, writeOptions);
    }

    @Override
    Cursor cursor(byte[] from) {
        Snapshot snapshot = db.getSnapshot();
        DBIterator iterator = db.iterator(new ReadOptions().snapshot(snapshot));
        if (from == null) {
            iterator.seekToFirst();
        } else {
            iterator.seek(from);
        }
        return new Cursor() {
            private Map.Entry<byte[], byte[]> current;

            @Override
            public boolean next() {
                current = iterator.hasNext() ? iterator.next() : null;
                return current != null;
            }

            @Override
            public byte[] key() {
                return current.getKey();
            }

            @Override
            public byte[] value() {
                return current.getValue();
            }

            @Override
            public void close() {
                try {
                    iterator.close();
                    snapshot.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    @Override
    public void flush() throws IOException {
        whileOpen(db::flushMemTable);
    }

    @Override
    public void compact() throws IOException {
        whileOpen(() -> {
            db.flushMemTable();
            byte[] last = new byte[COMPACTED_KEY_BYTES];
            Arrays.fill(last, (byte) 0xFF);
            for (int level = 0; level < LEVELS - 1; level++) {
                db.compactRange(level, new Slice(new byte[0]), new Slice(last));
            }
        });
    }

    @Override
    void closePeer() {
        db.close();
    }
}
