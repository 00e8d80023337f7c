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
    LSM(Engine.LSM.id(), Engine.LSM::open),
    ROCKSDB(Engine.ROCKSDB.id(), Engine.ROCKSDB::open),
    LMDB("lmdb", LmdbDao::open),
    MVSTORE("mvstore", MvStoreDao::open),
    XODUS("xodus", XodusDao::open),
    LEVELDB("leveldb", LevelDbDao::open);

    /** How an engine opens a store. */
    private interface Opener {
        Dao open(DaoOptions options) throws IOException;
    }

    private final String id;
    private final Opener opener;

    BenchEngine(String id, Opener opener) {
        this.id = id;
        this.opener = opener;
    }

    /** The name in parameters and properties, in lower case. */
    public String id() {
        return id;
    }

    /** Opens (creating if needed) a store of this engine in {@code options.dataDirectory()}. */
    public Dao open(DaoOptions options) throws IOException {
        return opener.open(options);
    }

    /** kvstore's own engine of this name, or {@code null} for a peer. */
    public Engine ours() {
        return this == LSM ? Engine.LSM : this == ROCKSDB ? Engine.ROCKSDB : null;
    }

    /**
     * The engine called {@code name} (case-insensitive).
     *
     * @throws IllegalArgumentException naming the known engines if there is none of that name
     */
    public static BenchEngine fromName(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return Stream.of(values()).filter(engine -> engine.id.equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown engine '" + name + "'; known engines: "
                        + Stream.of(values()).map(BenchEngine::id).collect(Collectors.joining(", "))));
    }
}
