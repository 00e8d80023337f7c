package io.kvstore.bench.peers;

import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import java.io.IOException;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every store the benchmarks can run on, by the name a benchmark parameter or a YCSB property gives:
 * kvstore's own engines and the embedded Java stores a user would try instead of ours, each behind our
 * {@link Dao}, so that comparing them is a matter of one parameter.
 */
public enum BenchEngine {
    LSM(Engine.LSM.id()) {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return Engine.LSM.open(options);
        }
    },
    ROCKSDB(Engine.ROCKSDB.id()) {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return Engine.ROCKSDB.open(options);
        }
    },
    LMDB("lmdb") {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return LmdbDao.open(options);
        }
    },
    MVSTORE("mvstore") {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return MvStoreDao.open(options);
        }
    },
    XODUS("xodus") {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return XodusDao.open(options);
        }
    },
    LEVELDB("leveldb") {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return LevelDbDao.open(options);
        }
    };

    private final String id;

    BenchEngine(String id) {
        this.id = id;
    }

    /** The name in parameters and properties, in lower case. */
    public String id() {
        return id;
    }

    /** Opens (creating if needed) a store of this engine in {@code options.dataDirectory()}. */
    public abstract Dao open(DaoOptions options) throws IOException;

    /** kvstore's own engine of this name, or {@code null} for a peer. */
    public Engine ours() {
        return this == LSM ? Engine.LSM : this == ROCKSDB ? Engine.ROCKSDB : null;
    }

    /** {@code engine} among the benchmarks' engines. */
    public static BenchEngine of(Engine engine) {
        return fromName(engine.id());
    }

    /**
     * The engine called {@code name} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the known engines if there is none of that name
     */
    public static BenchEngine fromName(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (BenchEngine engine : values()) {
            if (engine.id.equals(wanted)) {
                return engine;
            }
        }
        throw new IllegalArgumentException("Unknown engine '" + name + "'; known engines: "
                + Stream.of(values()).map(BenchEngine::id).collect(Collectors.joining(", ")));
    }
}
