package io.kvstore.bench;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.Compression;
import io.kvstore.core.Dao;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** An empty store in a new directory under {@link BenchDirectories#root()}, deleted when closed. */
final class FreshStore implements AutoCloseable {
    final Dao dao;
    private final Path directory;

    /** Where the store keeps its files. */
    Path directory() {
        return directory;
    }

    private FreshStore(Dao dao, Path directory) {
        this.dao = dao;
        this.directory = directory;
    }

    /** Opens an empty store of {@code engine} with the benchmarks' options ({@link PreloadedStore#options}). */
    static FreshStore open(BenchEngine engine, Compression compression) throws IOException {
        return open(engine, compression, BenchDirectories.root());
    }

    /** {@code dao}, a store opened in {@code directory}, which is deleted when the store is closed. */
    static FreshStore wrap(Dao dao, Path directory) {
        return new FreshStore(dao, directory);
    }

    /** {@link #open(BenchEngine, Compression)} in a new directory under {@code root} (created if missing). */
    static FreshStore open(BenchEngine engine, Compression compression, Path root) throws IOException {
        Files.createDirectories(root);
        Path directory = Files.createTempDirectory(root, "fill-" + engine.id() + "-");
        try {
            return new FreshStore(engine.open(PreloadedStore.options(directory, compression)), directory);
        } catch (IOException | RuntimeException e) {
            BenchDirectories.deleteRecursively(directory);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            dao.close();
        } finally {
            BenchDirectories.deleteRecursively(directory);
        }
    }
}
