package io.kvstore.core;

import io.kvstore.core.lsm.LsmDao;
import io.kvstore.core.rocksdb.RocksDbDao;
import java.io.IOException;
import java.util.Locale;

/** The storage engines, selectable by name ({@code --engine lsm|rocksdb} on the server). */
public enum Engine {
    /** The self-written LSM engine: the default. */
    LSM {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return LsmDao.open(options);
        }
    },
    /** RocksDB through its JNI binding, for comparison; needs org.rocksdb:rocksdbjni on the class path. */
    ROCKSDB {
        @Override
        public Dao open(DaoOptions options) throws IOException {
            return RocksDbDao.open(options);
        }
    };

    /** Opens (or creates) a store with this engine. */
    public abstract Dao open(DaoOptions options) throws IOException;

    /** The lower-case name used on command lines. */
    public String displayName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The engine called {@code name} ({@code lsm} or {@code rocksdb}, any case). */
    public static Engine fromName(String name) {
        for (Engine e : values()) {
            if (e.name().equalsIgnoreCase(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown engine '" + name + "'; expected lsm or rocksdb");
    }
}
