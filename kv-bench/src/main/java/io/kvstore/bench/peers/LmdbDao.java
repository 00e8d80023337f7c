package io.kvstore.bench.peers;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.lmdbjava.ByteArrayProxy;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.GetOp;
import org.lmdbjava.LmdbException;
import org.lmdbjava.Txn;

/**
 * LMDB (through lmdbjava) behind our {@link io.kvstore.core.Dao}: one B+tree in a memory-mapped file,
 * keys in LMDB's own order, which is unsigned bytes like ours. A write reads the stored version and
 * writes inside one LMDB write transaction, which LMDB runs one at a time, so no lock of ours is needed.
 *
 * <p>Durability: with {@link io.kvstore.core.SyncPolicy#NONE} the environment is opened with
 * {@code MDB_NOSYNC} and {@code MDB_NOMETASYNC}, so a commit is written to the file (the operating system
 * has it) but not forced to the device, as our {@code --sync none}; otherwise LMDB's default, an fsync at
 * every commit. {@link #flush()} forces the file to the device. There is nothing to compact: LMDB reuses
 * freed pages in place.
 */
public final class LmdbDao extends PeerDao {
    /** Address space reserved for the map; the file grows only as pages are used. */
    private static final long MAP_BYTES = 64L << 30;
    /** Readers at once: open ranges count, each holding a read transaction. */
    private static final int MAX_READERS = 1024;

    private final Env<byte[]> env;
    private final Dbi<byte[]> db;

    private LmdbDao(DaoOptions options) throws IOException {
        super(options);
        List<EnvFlags> flags = new ArrayList<>(List.of(EnvFlags.MDB_NOTLS));
        if (!syncsEachWrite(options)) {
            flags.addAll(List.of(EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOMETASYNC));
        }
        try {
            env = Env.create(ByteArrayProxy.PROXY_BA).setMapSize(MAP_BYTES).setMaxDbs(1).setMaxReaders(MAX_READERS)
                    .open(directory.toFile(), flags.toArray(new EnvFlags[0]));
            db = env.openDbi("kv", DbiFlags.MDB_CREATE);
        } catch (LmdbException e) {
            abandon();
            throw new IOException("Cannot open LMDB store " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Opens (creating if needed) the store in {@code options.dataDirectory()}. */
    public static LmdbDao open(DaoOptions options) throws IOException {
        return new LmdbDao(options);
    }

    @Override
    byte[] read(byte[] key) {
        try (Txn<byte[]> txn = env.txnRead()) {
            return db.get(txn, key);
        }
    }

    @Override
    void write(byte[] key, byte[] stored) {
        db.put(key, stored);
    }

    @Override
    void remove(byte[] key) {
        db.delete(key);
    }

    @Override
    void writeIfWins(Entry entry, byte[] encoded) {
        try (Txn<byte[]> txn = env.txnWrite()) {
            if (VersionedValue.winsOver(entry, db.get(txn, entry.key()))) {
                db.put(txn, entry.key(), encoded);
                txn.commit();
            }
        }
    }

    @Override
    boolean removeIfUnchanged(byte[] key, byte[] seen) {
        try (Txn<byte[]> txn = env.txnWrite()) {
            if (!Arrays.equals(db.get(txn, key), seen)) {
                return false;
            }
            db.delete(txn, key);
            txn.commit();
            return true;
        }
    }

    @Override
    Cursor cursor(byte[] from) {
        Txn<byte[]> txn = env.txnRead();
        org.lmdbjava.Cursor<byte[]> cursor = db.openCursor(txn);
        return new Cursor() {
            private boolean started;

            @Override
            public boolean next() {
                if (started) {
                    return cursor.next();
                }
                started = true;
                return from == null ? cursor.first() : cursor.get(from, GetOp.MDB_SET_RANGE);
            }

            @Override
            public byte[] key() {
                return cursor.key();
            }

            @Override
            public byte[] value() {
                return cursor.val();
            }

            @Override
            public void close() {
                cursor.close();
                txn.close();
            }
        };
    }

    @Override
    public void flush() throws IOException {
        whileOpen(() -> env.sync(true));
    }

    @Override
    public void compact() throws IOException {
        whileOpen(() -> { });
    }

    @Override
    void closePeer() {
        env.close();
    }
}
