package io.kvstore.bench.peers;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.lmdbjava.ByteBufferProxy;
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
 * Keys and values cross through direct buffers (lmdbjava's fast proxy, as its users are told to use), which
 * needs {@code --add-opens java.base/java.nio=ALL-UNNAMED}: the benchmarks' forks and kv-bench's tests pass it.
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
    /** LMDB's longest key with its default page size. */
    private static final int MAX_KEY_BYTES = 511;

    private final Env<ByteBuffer> env;
    private final Dbi<ByteBuffer> db;
    /** Each thread's direct buffer for the key of a call. */
    private final ThreadLocal<ByteBuffer> keyBuffers = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(MAX_KEY_BYTES));

    private LmdbDao(DaoOptions options) throws IOException {
        super(options);
        if (!Buffer.class.getModule().isOpen("java.nio", LmdbDao.class.getModule())) {
            abandon();
            throw new IllegalStateException("LMDB's buffer proxy needs the JVM option --add-opens java.base/java.nio=ALL-UNNAMED");
        }
        List<EnvFlags> flags = new ArrayList<>(List.of(EnvFlags.MDB_NOTLS));
        if (!syncsEachWrite(options)) {
            flags.addAll(List.of(EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOMETASYNC));
        }
        try {
            env = Env.create(ByteBufferProxy.PROXY_OPTIMAL).setMapSize(MAP_BYTES).setMaxDbs(1).setMaxReaders(MAX_READERS)
                    .open(directory.toFile(), flags.toArray(new EnvFlags[0]));
            db = env.openDbi("kv", DbiFlags.MDB_CREATE);
        } catch (LmdbException e) {
            throw cannotOpen("LMDB", e);
        }
    }

    /** Opens (creating if needed) the store in {@code options.dataDirectory()}. */
    public static LmdbDao open(DaoOptions options) throws IOException {
        return new LmdbDao(options);
    }

    /** {@code key} in this thread's key buffer, valid until the thread's next call. */
    private ByteBuffer key(byte[] key) {
        ByteBuffer buffer = keyBuffers.get().clear();
        return buffer.put(key).flip();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    @Override
    byte[] read(byte[] key) {
        try (Txn<ByteBuffer> txn = env.txnRead()) {
            return bytes(db.get(txn, key(key)));
        }
    }

    @Override
    void write(byte[] key, byte[] stored) {
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            db.reserve(txn, key(key), stored.length).put(stored);
            txn.commit();
        }
    }

    @Override
    void remove(byte[] key) {
        db.delete(key(key));
    }

    @Override
    void writeIfWins(Entry entry, byte[] encoded) {
        ByteBuffer key = key(entry.key());
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            if (VersionedValue.winsOver(entry, bytes(db.get(txn, key)))) {
                db.reserve(txn, key, encoded.length).put(encoded);
                txn.commit();
            }
        }
    }

    @Override
    boolean removeIfUnchanged(byte[] key, byte[] seen) {
        ByteBuffer buffer = key(key);
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            if (!Arrays.equals(bytes(db.get(txn, buffer)), seen)) {
                return false;
            }
            db.delete(txn, buffer);
            txn.commit();
            return true;
        }
    }

    @Override
    Cursor cursor(byte[] from) {
        // The cursor outlives this call, so its start key has a buffer of its own.
        ByteBuffer start = from == null ? null : ByteBuffer.allocateDirect(from.length).put(from).flip();
        Txn<ByteBuffer> txn = env.txnRead();
        org.lmdbjava.Cursor<ByteBuffer> cursor = db.openCursor(txn);
        return new Cursor() {
            private boolean started;

            @Override
            public boolean next() {
                if (started) {
                    return cursor.next();
                }
                started = true;
                return start == null ? cursor.first() : cursor.get(start, GetOp.MDB_SET_RANGE);
            }

            @Override
            public byte[] key() {
                return bytes(cursor.key());
            }

            @Override
            public byte[] value() {
                return bytes(cursor.val());
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
