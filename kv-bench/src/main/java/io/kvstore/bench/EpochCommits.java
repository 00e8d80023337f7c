package io.kvstore.bench;

import io.kvstore.cluster.internal.metadata.EpochProposer;
import io.kvstore.cluster.internal.metadata.MetadataGroup;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import io.kvstore.server.internode.MembershipClient;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What the epoch log costs: the time to commit one entry (a prepare and an accept round to every member
 * of the metadata group over the signed internal route, each synced by the acceptors before they
 * answer), and the time of a whole change without data (an empty node joining, then decommissioned),
 * on real nodes in this JVM over loopback. Commits are proposed for an epoch far above the cluster's,
 * so that they are real rounds on the real acceptors without touching the cluster's map. Prints
 * Markdown tables.
 *
 * <pre>
 * ./mvnw -q -pl kv-bench -am package -DskipTests
 * java -cp kv-bench/target/benchmarks.jar io.kvstore.bench.EpochCommits --nodes 3,5
 * </pre>
 */
@Command(name = "epoch-commits", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Time to commit one entry of the epoch log, and to join and decommission an empty node.")
public final class EpochCommits implements Callable<Integer> {
    /** An epoch no cluster of this benchmark reaches: its rounds decide nothing the nodes act on. */
    private static final long FAR_EPOCH = 1_000_000_000L;

    @Option(names = "--nodes", split = ",", description = "cluster sizes to measure")
    List<Integer> sizes = List.of(3, 5);

    @Option(names = "--commits", description = "commits timed per cluster size (after as many unmeasured ones)")
    int commits = 300;

    @Option(names = "--changes", description = "joins and decommissions timed per cluster size")
    int changes = 10;

    public static void main(String[] args) {
        System.exit(new CommandLine(new EpochCommits()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        List<String> rows = new ArrayList<>();
        for (int size : sizes) {
            rows.add(measure(size));
        }
        System.out.println("| nodes (group) | commit p50 | commit p99 | join p50 | join max | decommission p50 | decommission max"
                + " | acceptor file |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
        return 0;
    }

    private String measure(int size) throws Exception {
        Path root = BenchDirectories.root().resolve("epoch-commits-" + size);
        BenchDirectories.deleteRecursively(root);
        List<String> urls = new ArrayList<>();
        for (int i = 0; i <= size; i++) {
            urls.add("http://127.0.0.1:" + freePort());
        }
        List<KvServer> nodes = new ArrayList<>();
        Vertx vertx = Vertx.vertx();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try {
            for (int i = 0; i < size; i++) {
                nodes.add(KvServer.start(config(urls.get(i), root.resolve("node-" + i)).cluster(urls.subList(0, size)).build())
                        .toCompletableFuture().get(60, TimeUnit.SECONDS));
            }
            ClusterMap map = ClusterMapCodec.fromJson(get(http, urls.get(0) + "/v0/cluster"));
            MetadataGroup group = MetadataGroup.after(map);
            long[] joinNanos = new long[changes];
            long[] decommissionNanos = new long[changes];
            String newcomer = urls.get(size);
            for (int i = 0; i < changes; i++) {
                long started = System.nanoTime();
                KvServer joined = KvServer.start(config(newcomer, root.resolve("newcomer-" + i)).join(urls.get(0)).build())
                        .toCompletableFuture().get(60, TimeUnit.SECONDS);
                joined.joined().toCompletableFuture().get(60, TimeUnit.SECONDS);
                joinNanos[i] = System.nanoTime() - started;
                started = System.nanoTime();
                HttpResponse<String> left = http.send(HttpRequest.newBuilder(URI.create(newcomer + "/v0/admin/decommission"))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                decommissionNanos[i] = System.nanoTime() - started;
                if (left.statusCode() != 200) {
                    throw new IllegalStateException("decommission answered " + left.statusCode() + ": " + left.body());
                }
                joined.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            long acceptorBytes = 0;
            for (int i = 0; i < size; i++) {
                acceptorBytes = Math.max(acceptorBytes, Files.size(root.resolve("node-" + i).resolve("metadata-acceptor")));
            }
            WebClient web = WebClient.create(vertx);
            MembershipClient client = new MembershipClient(web, "http://127.0.0.1:1", () -> 0, 10_000);
            EpochProposer proposer = new EpochProposer("http://127.0.0.1:1", (node, vote) -> client.epochVote(node, vote).toCompletionStage(),
                    (delay, task) -> vertx.setTimer(Math.max(1, delay), id -> task.run()), System::currentTimeMillis,
                    () -> ThreadLocalRandom.current().nextLong(), 1_000);
            ClusterMap far = new ClusterMap(FAR_EPOCH, map.replicationFactor(), map.partitioner(), map.virtualNodes(), map.members());
            byte[] value = ClusterMapCodec.toJson(far).getBytes(StandardCharsets.UTF_8);
            long[] commitNanos = new long[commits];
            for (int i = -commits; i < commits; i++) {
                long started = System.nanoTime();
                EpochProposer.Outcome outcome = proposer.propose(FAR_EPOCH, group, value, 10_000).toCompletableFuture().get();
                if (!(outcome instanceof EpochProposer.Outcome.Chosen)) {
                    throw new IllegalStateException("a commit did not go through: " + outcome);
                }
                if (i >= 0) {
                    commitNanos[i] = System.nanoTime() - started;
                }
            }
            web.close();

            return String.format(Locale.ROOT, "| %d (%d) | %.1f ms | %.1f ms | %.0f ms | %.0f ms | %.0f ms | %.0f ms | %,d bytes |",
                    size, group.members().size(), millis(commitNanos, 0.50), millis(commitNanos, 0.99), millis(joinNanos, 0.50),
                    millis(joinNanos, 1.0), millis(decommissionNanos, 0.50), millis(decommissionNanos, 1.0), acceptorBytes);
        } finally {
            for (KvServer node : nodes) {
                node.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            BenchDirectories.deleteRecursively(root);
        }
    }

    private static KvServerConfig.Builder config(String self, Path dir) {
        return KvServerConfig.builder().port(URI.create(self).getPort()).self(self).dataDirectory(dir).network(network -> network.eventLoops(1))
                .antiEntropyInterval(Duration.ZERO);
    }

    private static String get(HttpClient http, String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static double millis(long[] nanos, double quantile) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
