package io.kvstore.bench.ycsb;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.BackgroundPriority;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.KvStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for the embedded store, so the standard workloads run against our LSM, RocksDB and the
 * embedded Java stores of {@link BenchEngine} through the same code. Properties: {@code kvstore.engine}
 * (lsm | rocksdb | lmdb | mvstore | xodus | leveldb, default lsm),
 * {@code kvstore.compression} (none | lz4 | zstd, default the store's default, applied by both engines),
 * {@code kvstore.backgroundPriority} (idle | 0 to 19, our LSM's flushes and compactions, default the
 * store's default), {@code kvstore.levelBaseBytes} (our LSM's {@code DaoOptions.levelBaseBytes}, default the
 * store's default), {@code kvstore.dir} (required). YCSB makes one instance per client thread; they share one store.
 *
 * <pre>
 * java -cp kv-bench/target/benchmarks.jar site.ycsb.Client -load -db io.kvstore.bench.ycsb.KvStoreYcsbDb \
 *      -P kv-bench/ycsb/workloada -p kvstore.engine=lsm -p kvstore.dir=ycsb-lsm -threads 2 -s
 # lmdb and xodus want what DaoBenchmark's forks get:
 * java --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED -cp ...
 * </pre>
 */
public final class KvStoreYcsbDb extends DB {
    private static final Object LOCK = new Object();
    private static PlainStore shared;
    private static int users;

    private PlainStore store;

    @Override
    public void init() throws DBException {
        Properties p = getProperties();
        String dir = p.getProperty("kvstore.dir");
        if (dir == null) {
            throw new DBException("set -p kvstore.dir=<directory of the store>");
        }
        synchronized (LOCK) {
            if (shared == null) {
                try {
                    BenchEngine engine = BenchEngine.fromName(p.getProperty("kvstore.engine", "lsm"));
                    DaoOptions.Builder options = DaoOptions.builder(Path.of(dir));
                    String compression = p.getProperty("kvstore.compression");
                    if (compression != null) {
                        options.compression(Compression.valueOf(compression.toUpperCase(Locale.ROOT)));
                    }
                    String levelBase = p.getProperty("kvstore.levelBaseBytes");
                    if (levelBase != null) {
                        options.levelBaseBytes(Long.parseLong(levelBase));
                    }
                    String priority = p.getProperty("kvstore.backgroundPriority");
                    if (priority != null) {
                        options.backgroundPriority(BackgroundPriority.parse(priority));
                    }
                    shared = engine.ours() != null ? PlainStore.of(KvStore.open(engine.ours(), options.build()))
                            : PlainStore.of(engine.open(options.build()));
                } catch (IOException | IllegalArgumentException e) {
                    throw new DBException("cannot open the store in " + dir + ": " + e.getMessage(), e);
                }
            }
            users++;
            store = shared;
        }
    }

    @Override
    public void cleanup() throws DBException {
        synchronized (LOCK) {
            if (--users == 0) {
                try {
                    // On stderr, beside YCSB's own report on stdout: what the engine did during the phase.
                    System.err.println("kvstore properties at close: " + shared.properties());
                    shared.close();
                } catch (IOException e) {
                    throw new DBException("closing the store failed", e);
                } finally {
                    shared = null;
                }
            }
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            byte[] stored = store.get(key(table, key));
            if (stored == null) {
                return Status.NOT_FOUND;
            }
            Records.decode(stored, fields, result);
            return Status.OK;
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status scan(String table, String startKey, int count, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        try (CloseableIterator<Map.Entry<byte[], byte[]>> range = store.range(key(table, startKey), end(table))) {
            for (int i = 0; i < count && range.hasNext(); i++) {
                HashMap<String, ByteIterator> record = new HashMap<>();
                Records.decode(range.next().getValue(), fields, record);
                result.add(record);
            }
            return Status.OK;
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            byte[] k = key(table, key);
            store.put(k, Records.merge(store.get(k), values));
            return Status.OK;
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            store.put(key(table, key), Records.encode(values));
            return Status.OK;
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            store.delete(key(table, key));
            return Status.OK;
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    private static byte[] key(String table, String key) {
        return (table + ':' + key).getBytes(StandardCharsets.UTF_8);
    }

    /** The first key after every key of {@code table} (':' + 1 is ';'). */
    private static byte[] end(String table) {
        return (table + ';').getBytes(StandardCharsets.UTF_8);
    }
}
