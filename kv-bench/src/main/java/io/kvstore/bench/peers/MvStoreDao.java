package io.kvstore.bench.peers;

import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import java.io.IOException;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.type.ByteArrayDataType;

/**
 * H2's MVStore behind our {@link io.kvstore.core.Dao}: one copy-on-write B-tree map of byte arrays
 * (compared as unsigned bytes) in one file, appended to in chunks. Only the MVStore API is used, not H2's
 * SQL engine.
 *
 * <p>Durability: MVStore's own default keeps writes in memory and commits them in the background after a
 * delay, so a killed process loses them. To match our {@code --sync none} (a write is acknowledged once the
 * operating system has it) each write is committed, which writes a chunk to the file; the background
 * thread stays on for MVStore's housekeeping (it drops and compacts chunks as it would otherwise). A sync policy other than {@link io.kvstore.core.SyncPolicy#NONE} also syncs the file after it.
 * {@link #compact()} rewrites sparse chunks ({@code compactFile}).
 */
public final class MvStoreDao extends PeerDao {
    /** The longest {@link #compact()} may run, in milliseconds: MVStore compacts until then or until dense. */
    private static final int COMPACT_MILLIS = 1_000;

    private final MVStore store;
    private final MVMap<byte[], byte[]> map;
    private final boolean sync;

    private MvStoreDao(DaoOptions options) throws IOException {
        super(options);
        sync = syncsEachWrite(options);
        MVStore.Builder builder = new MVStore.Builder().fileName(directory.resolve("store.mv").toString())
                .cacheSize((int) Math.max(1, options.blockCacheBytes() >> 20));
        if (options.compression() != Compression.NONE) {
            builder.compress();
        }
        try {
            store = builder.open();
            map = store.openMap("kv", new MVMap.Builder<byte[], byte[]>()
                    .keyType(ByteArrayDataType.INSTANCE).valueType(ByteArrayDataType.INSTANCE));
        } catch (MVStoreException e) {
            throw cannotOpen("MVStore", e);
        }
    }

    /** Opens (creating if needed) the store in {@code options.dataDirectory()}. */
    public static MvStoreDao open(DaoOptions options) throws IOException {
        return new MvStoreDao(options);
    }

    @Override
    byte[] read(byte[] key) {
        return map.get(key);
    }

    @Override
    void write(byte[] key, byte[] stored) {
        map.put(key, stored);
        commit();
    }

    @Override
    void remove(byte[] key) {
        map.remove(key);
        commit();
    }

    private void commit() {
        store.commit();
        if (sync) {
            store.sync();
        }
    }

    @Override
    Cursor cursor(byte[] from) {
        // Keeps the chunks of this version from being freed by a commit or compaction while the cursor reads them.
        MVStore.TxCounter version = store.registerVersionUsage();
        org.h2.mvstore.Cursor<byte[], byte[]> cursor = map.cursor(from);
        return new Cursor() {
            @Override
            public boolean next() {
                if (!cursor.hasNext()) {
                    return false;
                }
                cursor.next();
                return true;
            }

            @Override
            public byte[] key() {
                return cursor.getKey();
            }

            @Override
            public byte[] value() {
                return cursor.getValue();
            }

            @Override
            public void close() {
                store.deregisterVersionUsage(version);
            }
        };
    }

    @Override
    public void flush() throws IOException {
        whileOpen(() -> {
            store.commit();
            store.sync();
        });
    }

    @Override
    public void compact() throws IOException {
        whileOpen(() -> store.compactFile(COMPACT_MILLIS));
    }

    @Override
    void closePeer() {
        store.close();
    }
}
