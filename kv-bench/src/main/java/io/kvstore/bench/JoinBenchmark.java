package io.kvstore.bench;

import io.kvstore.core.CloseableIterator;
import io.kvstore.core.Dao;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A fourth node joining a three-node cluster (replication factor 3, so every node holds every key), all
 * in this JVM over loopback HTTP. The three stores are written directly (not over HTTP) before the
 * nodes start; then the fourth node starts with {@code --join} and the time until it is {@code normal}
 * is measured. Reported: keys streamed (what the newcomer holds afterwards, each sent by the one old
 * owner that stops being its replica), their bytes (keys and values), duration and keys per second.
 *
 * <pre>
 * java -Xmx2g -cp kv-bench/target/benchmarks.jar io.kvstore.bench.JoinBenchmark --keys 1000000 --value-bytes 100
 * </pre>
 */
@Command(name = "join-benchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Measures the join of a 4th node to a 3-node cluster holding N keys per node.")
public final class JoinBenchmark implements Callable<Integer> {
    private static final int SEEDS = 3;

    @Option(names = "--keys", description = "keys per node (every node of the three holds every key)")
    int keys = 1_000_000;

    @Option(names = "--value-bytes", description = "bytes per value")
    int valueBytes = 100;

    @Option(names = "--stream-bytes-per-s", description = "each owner's stream pace, as the server's --stream-bytes-per-s")
    long streamBytesPerSecond = KvServerConfig.DEFAULT_STREAM_BYTES_PER_SECOND;

    public static void main(String[] args) {
        System.exit(new CommandLine(new JoinBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Path root = BenchDirectories.root().resolve("join-" + keys);
        BenchDirectories.deleteRecursively(root);
        long timestamp = System.currentTimeMillis() << 16;
        List<String> urls = new ArrayList<>();
        for (int i = 0; i <= SEEDS; i++) {
            urls.add("http://127.0.0.1:" + freePort());
        }
        for (int i = 0; i < SEEDS; i++) {
            load(root.resolve("node-" + i), timestamp);
        }
        List<KvServer> nodes = new ArrayList<>();
        double seconds;
        try {
            for (int i = 0; i < SEEDS; i++) {
                nodes.add(KvServer.start(config(urls.get(i), root.resolve("node-" + i)).cluster(urls.subList(0, SEEDS)).build())
                        .toCompletableFuture().get());
            }
            long started = System.nanoTime();
            KvServer newcomer = KvServer.start(config(urls.get(SEEDS), root.resolve("node-" + SEEDS)).join(urls.get(0)).build())
                    .toCompletableFuture().get();
            nodes.add(newcomer);
            newcomer.joined().toCompletableFuture().get(2, TimeUnit.HOURS);
            seconds = (System.nanoTime() - started) / 1e9;
        } finally {
            for (KvServer node : nodes) {
                node.stop().toCompletableFuture().get();
            }
        }
        long[] streamed = count(root.resolve("node-" + SEEDS));
        System.out.printf("| nodes | keys per node | value bytes | keys streamed | bytes streamed (keys and values) | join time | keys/s | MB/s |%n"
                + "|---|---|---|---|---|---|---|---|%n"
                + "| 3 -> 4, RF 3 | %,d | %d | %,d | %,d | %.1f s | %,.0f | %.1f |%n",
                keys, valueBytes, streamed[0], streamed[1], seconds, streamed[0] / seconds, streamed[1] / seconds / 1e6);
        BenchDirectories.deleteRecursively(root);
        return 0;
    }

    private KvServerConfig.Builder config(String self, Path dir) {
        return KvServerConfig.builder().port(URI.create(self).getPort()).self(self).dataDirectory(dir)
                .antiEntropyInterval(Duration.ZERO).streamBytesPerSecond(streamBytesPerSecond);
    }

    /** Writes the benchmark's keys, the same on every store, into the store in {@code dir}. */
    private void load(Path dir, long timestamp) throws IOException {
        SplittableRandom random = new SplittableRandom(42);
        byte[] value = new byte[valueBytes];
        try (Dao dao = Engine.LSM.open(KvServerConfig.builder().dataDirectory(dir).build().storeOptions())) {
            for (int i = 0; i < keys; i++) {
                random.nextBytes(value);
                dao.upsert(Entry.value(key(i), value.clone(), timestamp));
            }
            dao.flush();
        }
    }

    /** Entries in the stopped node's store in {@code dir}, and their key and value bytes. */
    private static long[] count(Path dir) throws IOException {
        long entries = 0;
        long bytes = 0;
        try (Dao dao = Engine.LSM.open(KvServerConfig.builder().dataDirectory(dir).build().storeOptions());
             CloseableIterator<Entry> all = dao.range(null, null)) {
            while (all.hasNext()) {
                Entry entry = all.next();
                entries++;
                bytes += entry.key().length + (entry.isTombstone() ? 0 : entry.value().length);
            }
        }
        return new long[] {entries, bytes};
    }

    private static byte[] key(int i) {
        return String.format("key%010d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
