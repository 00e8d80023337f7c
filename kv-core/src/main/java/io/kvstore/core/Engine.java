package io.kvstore.core;

import io.kvstore.core.internal.lsm.LsmDao;
import io.kvstore.core.rocksdb.RocksDbDao;

import java.io.IOException;
import java.util.Locale;

/**
 * The storage engines a {@link Dao} can be opened with, by the names used on the command line
 * ({@code --engine rocksdb}) and in benchmarks.
 */
public enum Engine {
    /** The self-written log-structured merge-tree engine (docs/DESIGN.md, "Storage engine"): the default. */
    LSM("lsm") {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return LsmDao.open(options);
        }
    },
    /**
     * RocksDB through rocksdbjni: the comparison engine. The dependency is optional in kv-core, so an
     * application choosing it must depend on {@code org.rocksdb:rocksdbjni} (classifier linux64) itself.
     */
    ROCKSDB("rocksdb") {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            try {
                return RocksDbDao.open(options);
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException("Engine 'rocksdb' needs org.rocksdb:rocksdbjni (classifier linux64)"
                        + " on the class path; kv-core declares it optional", e);
            }
        }
    };

    private final String id;

    Engine(String id) {
        this.id = id;
    }

    /** The engine's name as given on the command line, in lower case. */
    public String id() {
        return id;
    }

    /** Opens (creating if needed) a store of this engine in {@code options.dataDirectory()}. */
    public abstract Dao open(DaoOptions options) throws IOException;

    /**
     * The engine called {@code name} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the known engines if there is none of that name
     */
    public static Engine fromName(String name) {
        if (name != null) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (Engine engine : values()) {
                if (engine.id.equals(wanted)) {
                    return engine;
                }
            }
        }
        throw new IllegalArgumentException("Unknown storage engine '" + name + "'; known engines: " + names());
    }

    /** The known engine names, comma-separated, for messages and help texts. */
    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (Engine engine : values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(engine.id);
        }
        return sb.toString();
    }
}
