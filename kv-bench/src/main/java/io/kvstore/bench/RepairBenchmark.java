package io.kvstore.bench;

import io.kvstore.core.Dao;
import io.kvstore.core.Engine;
import io.kvstore.core.Entry;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Anti-entropy between two real nodes in this JVM over loopback HTTP: a replica rebuilt from empty,
 * and a replica one key behind. The stores are written directly (not over HTTP) before the nodes
 * start, then {@code POST /v0/admin/repair} runs on one node and its JSON summary is reported: keys
 * moved, bytes on the wire (every repair request and answer body), duration. With {@code --damaged},
 * the replica's every table is damaged instead (a byte of its index flipped) before it starts, which
 * quarantines them all, and the repair from it heals them from its peer.
 *
 * <pre>
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.RepairBenchmark --keys 1000000 --value-bytes 100
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.RepairBenchmark --keys 1000000 --value-bytes 1000 --damaged
 * </pre>
 */
@Command(name = "repair-benchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Measures repair of a wiped replica and of a replica one key out of sync, or with --damaged the"
                + " healing of a replica whose every table is quarantined.")
public final class RepairBenchmark implements Callable<Integer> {
    /** The bytes of a table's footer, at its end (FORMAT.md): the index block's offset at 12, its size at 20. */
    private static final int FOOTER_BYTES = 56;

    @Option(names = "--keys", description = "keys in the store")
    int keys = 1_000_000;

    @Option(names = "--value-bytes", description = "bytes per value")
    int valueBytes = 100;

    @Option(names = "--damaged", description = "only the replica whose every table is damaged, healed from its peer")
    boolean damaged;

    /** The bytes of the damaged node's tables. */
    private long damagedBytes;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RepairBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Path root = BenchDirectories.root().resolve("repair-" + keys);
        BenchDirectories.deleteRecursively(root);
        long timestamp = System.currentTimeMillis() << 16;
        load(root.resolve("a"), timestamp);
        load(root.resolve("b"), timestamp);
        if (damaged) {
            damagedBytes = damageEveryIndex(root.resolve("b"));
            report(String.format("every table damaged (%,d bytes): quarantined at the start, healed by a repair from the"
                    + " damaged node", damagedBytes), root, false);
            BenchDirectories.deleteRecursively(root);
            return 0;
        }
        report("one key out of sync: repair from the node holding the newer version", root, true);

        BenchDirectories.deleteRecursively(root.resolve("b"));
        report("wiped replica: repair from the empty node", root, false);
        BenchDirectories.deleteRecursively(root);
        return 0;
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

    /**
     * Flips a byte in the middle of the index block of every table in {@code dir}, on disk, so that the
     * node quarantines them all when it starts; returns the tables' bytes.
     */
    private static long damageEveryIndex(Path dir) throws IOException {
        long total = 0;
        List<Path> tables;
        try (Stream<Path> files = Files.list(dir)) {
            tables = files.filter(f -> f.getFileName().toString().endsWith(".sst")).toList();
        }
        for (Path table : tables) {
            try (FileChannel channel = FileChannel.open(table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long size = channel.size();
                ByteBuffer footer = ByteBuffer.allocate(FOOTER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
                channel.read(footer, size - FOOTER_BYTES);
                long at = footer.getLong(12) + footer.getInt(20) / 2;
                ByteBuffer one = ByteBuffer.allocate(1);
                channel.read(one, at);
                one.put(0, (byte) (one.get(0) ^ 0x20));
                channel.write(one.rewind(), at);
                total += size;
            }
        }
        return total;
    }

    private void report(String title, Path root, boolean oneKeyBehind) throws Exception {
        String a = "http://127.0.0.1:" + freePort();
        String b = "http://127.0.0.1:" + freePort();
        KvServer nodeA = start(a, List.of(a, b), root.resolve("a"));
        KvServer nodeB = start(b, List.of(a, b), root.resolve("b"));
        try {
            if (oneKeyBehind) {
                // One key written on its first replica only, as a write the other node missed.
                HttpClient http = HttpClient.newHttpClient();
                HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(a + "/v0/entity?id="
                        + new String(key(keys / 2), StandardCharsets.UTF_8) + "&from=1&ack=1"))
                        .PUT(HttpRequest.BodyPublishers.ofString("changed")).build(), HttpResponse.BodyHandlers.ofString());
                if (put.statusCode() != 201) {
                    throw new IllegalStateException("PUT answered " + put.statusCode() + ": " + put.body());
                }
            }
            String driver = oneKeyBehind ? a : b;
            long started = System.nanoTime();
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(driver + "/v0/admin/repair"))
                    .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofMinutes(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            double seconds = (System.nanoTime() - started) / 1e9;
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("repair answered " + answer.statusCode() + ": " + answer.body());
            }
            JsonObject summary = new JsonObject(answer.body());
            long moved = summary.getLong("keysSent") + summary.getLong("keysReceived");
            System.out.printf("%s%n  keys %,d x %d B values; keys moved %,d; bytes on the wire %,d (%.1f B per key moved);"
                            + " %.2f s; %,.0f keys/s%n  summary %s%n",
                    title, keys, valueBytes, moved, summary.getLong("wireBytes"),
                    moved == 0 ? 0.0 : summary.getLong("wireBytes") / (double) moved, seconds, moved / seconds,
                    summary.getJsonArray("peers").encode());
            if (damaged) {
                JsonObject status = new JsonObject(HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(b + "/v0/status")).build(), HttpResponse.BodyHandlers.ofString()).body());
                System.out.printf("  still quarantined after the repair: %s; %.1f MB of tables healed per second%n",
                        status.getJsonObject("damage").getJsonArray("quarantined").encode(), damagedBytes / 1e6 / seconds);
                JsonObject heal = summary.getJsonObject("heal");
                if (heal != null) {
                    long healMillis = 0;
                    for (Object exchange : heal.getJsonArray("exchanges")) {
                        healMillis += ((JsonObject) exchange).getLong("durationMillis");
                    }
                    System.out.printf("  healing: %d of %d intervals healed by %d exchanges of their keys; %,d keys in the"
                                    + " trees, %,d versions compared, %,d keys received; %.2f s before the whole-store exchange%n",
                            heal.getInteger("healed"), heal.getInteger("intervals"), heal.getJsonArray("exchanges").size(),
                            heal.getLong("treeKeys"), heal.getLong("versionsCompared"), heal.getLong("keysReceived"),
                            healMillis / 1e3);
                }
            }
        } finally {
            nodeA.stop().toCompletableFuture().get();
            nodeB.stop().toCompletableFuture().get();
        }
    }

    private static KvServer start(String self, List<String> cluster, Path dir) throws Exception {
        return KvServer.start(KvServerConfig.builder().port(URI.create(self).getPort()).self(self).cluster(cluster)
                .dataDirectory(dir).antiEntropyInterval(Duration.ZERO)
                .network(network -> network.idleTimeout(Duration.ofMinutes(30))).build())
                .toCompletableFuture().get();
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
