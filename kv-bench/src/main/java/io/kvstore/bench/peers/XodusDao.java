package io.kvstore.bench.peers;

import io.kvstore.core.DaoOptions;
import java.io.IOException;
import java.util.Arrays;
import jetbrains.exodus.ArrayByteIterable;
import jetbrains.exodus.ByteIterable;
import jetbrains.exodus.ExodusException;
import jetbrains.exodus.env.Environment;
import jetbrains.exodus.env.EnvironmentConfig;
import jetbrains.exodus.env.EnvironmentImpl;
import jetbrains.exodus.env.Environments;
import jetbrains.exodus.env.Store;
import jetbrains.exodus.env.StoreConfig;
import jetbrains.exodus.env.Transaction;

/**
 * JetBrains Xodus behind our {@link io.kvstore.core.Dao}: one store of an environment, a B+tree in an
 * append-only log of files, keys compared as unsigned bytes like ours; a range reads a read-only
 * transaction's snapshot.
 *
 * <p>Durability: each write is its own exclusive transaction (optimistic ones would replay whenever another
 * writer committed first), written to the log at its commit. With
 * {@link io.kvstore.core.SyncPolicy#NONE} the log is not forced to the device at a commit
 * ({@code setLogDurableWrite(false)}, Xodus's default), as our {@code --sync none}; otherwise every commit
 * is ({@code setLogDurableWrite(true)}). {@link #flush()} forces the log; {@link #compact()} asks the
 * log's garbage collector to run.
 */
public final class XodusDao extends PeerDao {
    private final Environment env;
    private final Store store;

    private XodusDao(DaoOptions options) throws IOException {
        super(options);
        EnvironmentConfig config = new EnvironmentConfig()
                .setLogDurableWrite(syncsEachWrite(options))
                .setEnvCloseForcedly(true)
                .setMemoryUsage(Math.max(16L << 20, options.blockCacheBytes()));
        Environment opened = null;
        try {
            opened = Environments.newInstance(directory.resolve("xodus").toFile(), config);
            Environment environment = opened;
            store = opened.computeInTransaction(txn -> environment.openStore("kv", StoreConfig.WITHOUT_DUPLICATES, txn));
            env = opened;
        } catch (ExodusException e) {
            if (opened != null) {
                opened.close();
            }
            throw cannotOpen("Xodus", e);
        }
    }

    /** Opens (creating if needed) the store in {@code options.dataDirectory()}. */
    public static XodusDao open(DaoOptions options) throws IOException {
        return new XodusDao(options);
    }

    @Override
    byte[] read(byte[] key) {
        return env.computeInReadonlyTransaction(txn -> bytes(store.get(txn, new ArrayByteIterable(key))));
    }

    @Override
    void write(byte[] key, byte[] stored) {
        env.executeInExclusiveTransaction(txn -> store.put(txn, new ArrayByteIterable(key), new ArrayByteIterable(stored)));
    }

    @Override
    void remove(byte[] key) {
        env.executeInExclusiveTransaction(txn -> store.delete(txn, new ArrayByteIterable(key)));
    }

    private static byte[] bytes(ByteIterable bytes) {
        return bytes == null ? null : Arrays.copyOf(bytes.getBytesUnsafe(), bytes.getLength());
    }

    @Override
    Cursor cursor(byte[] from) {
        Transaction txn = env.beginReadonlyTransaction();
        jetbrains.exodus.env.Cursor cursor = store.openCursor(txn);
        return new Cursor() {
            private boolean started;

            @Override
            public boolean next() {
                if (started || from == null) {
                    started = true;
                    return cursor.getNext();
                }
                started = true;
                return cursor.getSearchKeyRange(new ArrayByteIterable(from)) != null;
            }

            @Override
            public byte[] key() {
                return bytes(cursor.getKey());
            }

            @Override
            public byte[] value() {
                return bytes(cursor.getValue());
            }

            @Override
            public void close() {
                cursor.close();
                txn.abort();
            }
        };
    }

    @Override
    public void flush() throws IOException {
        whileOpen(((EnvironmentImpl) env)::flushAndSync);
    }

    @Override
    public void compact() throws IOException {
        whileOpen(env::gc);
    }

    @Override
    void closePeer() {
        env.close();
    }
}
