package io.kvstore.examples.embedding;

import io.kvstore.core.Compression;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.KvStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Table compression ({@link DaoOptions.Builder#compression}): the same entries written into three
 * stores, one per {@link Compression} codec, flushed to tables, and the tables' bytes on disk of
 * each. LZ4 is the default; ZSTD trades CPU for a better ratio; NONE stores blocks as they are. The
 * values here are JSON-like text, which compresses well; random bytes would not. What each codec costs
 * in time is in docs/BENCHMARKS.md.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.embedding.CompressedTables [dir] [keys]</pre>
 */
public final class CompressedTables {
    private CompressedTables() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("kvstore-compressed-tables");
        int keys = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        run(dir, keys, System.out);
    }

    /** Prints and returns the tables' bytes per codec. */
    static Map<Compression, Long> run(Path dir, int keys, PrintStream out) throws IOException {
        Map<Compression, Long> tableBytes = new EnumMap<>(Compression.class);
        for (Compression codec : Compression.values()) {
            DaoOptions options = DaoOptions.builder(dir.resolve(codec.name().toLowerCase(Locale.ROOT)))
                    .compression(codec)
                    .build();
            try (KvStore store = KvStore.open(Engine.LSM, options)) {
                for (int i = 0; i < keys; i++) {
                    store.put(String.format("order:%08d", i).getBytes(StandardCharsets.UTF_8), value(i));
                }
                store.flush(); // the memtable becomes a table: what is measured is what a table holds
                tableBytes.put(codec, store.properties().tableBytes());
                if (!Arrays.equals(value(42), store.get("order:00000042".getBytes(StandardCharsets.UTF_8)))) {
                    throw new IllegalStateException(codec + " read back another value");
                }
            }
        }
        long none = tableBytes.get(Compression.NONE);
        out.printf("%d entries, values like %s%n", keys, new String(value(42), StandardCharsets.UTF_8));
        out.printf("%-5s %12s %8s%n", "codec", "table bytes", "of NONE");
        for (Map.Entry<Compression, Long> e : tableBytes.entrySet()) {
            out.printf("%-5s %12d %7.0f%%%n", e.getKey(), e.getValue(), 100.0 * e.getValue() / none);
        }
        return tableBytes;
    }

    private static byte[] value(int i) {
        return String.format("{\"id\":%d,\"status\":\"%s\",\"customer\":\"customer-%05d\",\"items\":%d,\"currency\":\"EUR\"}",
                i, i % 3 == 0 ? "shipped" : "pending", i % 10_000, 1 + i % 7).getBytes(StandardCharsets.UTF_8);
    }
}
