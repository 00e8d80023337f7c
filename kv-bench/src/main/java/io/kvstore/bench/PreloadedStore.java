package io.kvstore.bench;

import io.kvstore.bench.peers.BenchEngine;
import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Compression;
import io.kvstore.core.Dao;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The read benchmarks' store: {@code keys} entries ({@link BenchKeys} indices {@code [0, keys)} with
 * their {@link BenchValues}), flushed and compacted into tables, built once per engine, key count,
 * codec and kind of value, and reused by later forks and runs.
 *
 * <p>Reuse is sound because the read benchmarks never write, the content is a pure function of
 * (engine, keys, codec, values), and a store is only reused if its {@code COMPLETE} marker names the
 * same benchmarks jar (path, size, modification time): the marker is written after the load finished
 * and the store closed, so an interrupted build is never reused, and a rebuilt jar (possibly with a
 * changed engine format) forces a fresh load. Every open is checked on a sample of present and absent
 * keys.
 */
final class PreloadedStore {
    private static final Logger log = LoggerFactory.getLogger(PreloadedStore.class);
    /** Bump when {@link BenchKeys} or the load procedure changes. */
    private static final String LAYOUT = "layout-2";
    private static final int SAMPLE = 2000;

    private PreloadedStore() {
    }

    /** The options of every benchmark store: the defaults but for the block codec, which both engines apply. */
    static DaoOptions options(Path directory, Compression compression) {
        return DaoOptions.builder(directory).compression(compression).build();
    }

    static Dao open(BenchEngine engine, int keys, Compression compression, BenchValues values) throws IOException {
        return open(engine, keys, compression, values, DaoOptions.defaultBlockCacheBytes());
    }

    /**
     * {@link #open(BenchEngine, int, Compression, BenchValues)} with a block cache of {@code blockCacheBytes}
     * for the reads (the files do not depend on it, so one preloaded store serves every size).
     */
    static Dao open(BenchEngine engine, int keys, Compression compression, BenchValues values, long blockCacheBytes)
            throws IOException {
        String name = engine.id() + "-" + keys + "-" + compression.name().toLowerCase(Locale.ROOT)
                + "-" + values.id();
        Path base = BenchDirectories.root().resolve(name);
        Path store = base.resolve("store");
        Path marker = base.resolve("COMPLETE");
        String fingerprint = LAYOUT + " " + codeFingerprint();
        if (!Files.exists(marker) || !Files.readString(marker, StandardCharsets.UTF_8).equals(fingerprint)) {
            BenchDirectories.deleteRecursively(base);
            Files.createDirectories(store);
            load(engine, options(store, compression), keys, values);
            Files.writeString(marker, fingerprint, StandardCharsets.UTF_8);
        } else {
            log.info("Reusing preloaded {} store of {} keys in {}", engine.id(), keys, store);
        }
        Dao dao = engine.open(options(store, compression).toBuilder().blockCacheBytes(blockCacheBytes).build());
        try {
            check(dao, keys, values);
        } catch (RuntimeException | IOException e) {
            dao.close();
            throw e;
        }
        return dao;
    }

    private static void load(BenchEngine engine, DaoOptions options, int keys, BenchValues values) throws IOException {
        log.info("Loading {} keys into a fresh {} store in {}", keys, engine.id(), options.dataDirectory());
        long started = System.nanoTime();
        try (Dao dao = engine.open(options)) {
            for (int i = 0; i < keys; i++) {
                dao.upsert(Entry.value(BenchKeys.key(i), values.value(i), 1));
                if ((i + 1) % 1_000_000 == 0) {
                    log.info("  {} keys loaded", i + 1);
                }
            }
            dao.flush();
            dao.compact();
        }
        log.info("Loaded {} keys in {} s", keys, (System.nanoTime() - started) / 1_000_000_000L);
    }

    /** Fails loudly if the store does not hold exactly what the benchmarks assume. */
    private static void check(Dao dao, int keys, BenchValues values) throws IOException {
        SplittableRandom random = new SplittableRandom(keys);
        for (int n = 0; n < SAMPLE; n++) {
            int present = random.nextInt(keys);
            Entry e = dao.get(BenchKeys.key(present));
            if (e == null || e.isTombstone() || !Arrays.equals(values.value(present), e.value())) {
                throw new IllegalStateException("Preloaded store lacks key #" + present + " (got " + e + ")");
            }
            long absent = (long) keys + random.nextInt(keys);
            if (dao.get(BenchKeys.key(absent)) != null) {
                throw new IllegalStateException("Preloaded store has key #" + absent + ", which was never written");
            }
        }
        try (CloseableIterator<Entry> range = dao.range(null, null)) {
            int seen = 0;
            while (seen < 100 && range.hasNext()) {
                range.next();
                seen++;
            }
            if (seen < Math.min(100, keys)) {
                throw new IllegalStateException("Preloaded store range returned only " + seen + " entries");
            }
        }
    }

    private static String codeFingerprint() {
        try {
            Path code = Path.of(PreloadedStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return code + " " + Files.size(code) + " " + Files.getLastModifiedTime(code).toMillis();
        } catch (Exception e) {
            return "unknown-code-source";
        }
    }
}
