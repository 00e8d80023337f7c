package io.kvstore.examples.embedding;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.KvStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * Embedding the LSM engine: open a store in a directory, write, read, delete, scan a range, close.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.embedding.EmbeddedStore [dir] [keys]</pre>
 */
public final class EmbeddedStore {
    private EmbeddedStore() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "example-data");
        int keys = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        run(dir, keys, System.out);
    }

    static void run(Path dir, int keys, PrintStream out) throws IOException {
        DaoOptions options = DaoOptions.builder(dir).flushThresholdBytes(4 << 20).build();
        try (KvStore store = KvStore.open(Engine.LSM, options)) {
            long start = System.nanoTime();
            for (int i = 0; i < keys; i++) {
                store.put(key(i), ("value-" + i).getBytes(StandardCharsets.UTF_8));
            }
            out.printf("wrote %d keys in %d ms%n", keys, (System.nanoTime() - start) / 1_000_000);
            out.println("get user:000042 -> " + text(store.get(key(42))));
            store.delete(key(42));
            out.println("after delete, get user:000042 -> " + text(store.get(key(42))));
            out.println("scan [user:000040, user:000045):");
            try (CloseableIterator<Map.Entry<byte[], byte[]>> range = store.range(key(40), key(45))) {
                while (range.hasNext()) {
                    Map.Entry<byte[], byte[]> e = range.next();
                    out.println("  " + text(e.getKey()) + " = " + text(e.getValue()));
                }
            }
        }
        try (KvStore reopened = KvStore.open(Engine.LSM, options)) {
            out.println("after reopen, get user:000043 -> " + text(reopened.get(key(43))));
        }
    }

    private static byte[] key(int i) {
        return String.format("user:%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "(absent)" : new String(bytes, StandardCharsets.UTF_8);
    }
}
