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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Anti-entropy between two real nodes in this JVM over loopback HTTP: a replica rebuilt from empty,
 * and a replica one key behind. The stores are written directly (not over HTTP) before the nodes
 * start, then {@code POST /v0/admin/repair} runs on one node and its JSON summary is reported: keys
 * moved, bytes on the wire (every repair request and answer body), duration.
 *
 * <pre>
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.RepairBenchmark --keys 1000000 --value-bytes 100
 * </pre>
 */
@Command(name = "repair-benchmark", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Measures repair of a wiped replica and of a replica one key out of sync.")
public final class RepairBenchmark implements Callable<Integer> {
    @Option(names = "--keys", description = "keys in the store")
    int keys = 1_000_000;

    @Option(names = "--value-bytes", description = "bytes per value")
    int valueBytes = 100;

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
