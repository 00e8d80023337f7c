package io.kvstore.examples.embedding;

import io.kvstore.core.DaoOptions;
import io.kvstore.core.Engine;
import io.kvstore.core.KvStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Entries that expire: {@link KvStore#put(byte[], byte[], Duration)} stores a value for a time, after
 * which the key reads as absent, as if deleted; a flush or a reopen does not bring it back. The store
 * reads time from {@link DaoOptions.Builder#clock}: a program leaves it out (the wall clock), this one
 * sets a clock it moves itself, so that an hour passes at once.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.embedding.ExpiringKeys [dir]</pre>
 */
public final class ExpiringKeys {
    private ExpiringKeys() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("kvstore-expiring-keys");
        run(dir, System.out);
    }

    static void run(Path dir, PrintStream out) throws IOException {
        AtomicLong now = new AtomicLong(System.currentTimeMillis());
        DaoOptions options = DaoOptions.builder(dir).clock(now::get).build();
        try (KvStore store = KvStore.open(Engine.LSM, options)) {
            store.put(bytes("session:a"), bytes("token-a"), Duration.ofHours(1));
            store.put(bytes("user:a"), bytes("Ada"));
            out.println("put session:a for 1 h, user:a for ever");
            out.println("now:          session:a -> " + text(store.get(bytes("session:a"))) + ", user:a -> " + text(store.get(bytes("user:a"))));
            now.addAndGet(Duration.ofMinutes(59).toMillis());
            out.println("after 59 min: session:a -> " + text(store.get(bytes("session:a"))));
            now.addAndGet(Duration.ofMinutes(1).toMillis());
            out.println("after 60 min: session:a -> " + text(store.get(bytes("session:a"))) + ", user:a -> " + text(store.get(bytes("user:a"))));
            store.flush();
        }
        try (KvStore reopened = KvStore.open(Engine.LSM, options)) {
            out.println("after flush and reopen: session:a -> " + text(reopened.get(bytes("session:a")))
                    + ", user:a -> " + text(reopened.get(bytes("user:a"))));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "(absent)" : new String(bytes, StandardCharsets.UTF_8);
    }
}
