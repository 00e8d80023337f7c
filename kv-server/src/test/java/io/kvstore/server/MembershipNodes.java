package io.kvstore.server;

import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.server.config.KvServerConfig;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Real nodes in this JVM for membership tests: addresses picked up front, the first {@code seeds} of
 * them seeded with {@code --cluster}, the others started later with {@code --join}.
 */
final class MembershipNodes implements AutoCloseable {
    final List<String> urls = new ArrayList<>();
    private final List<Path> dirs = new ArrayList<>();
    private final KvServer[] nodes;
    private final int seeds;
    private final int replicationFactor;
    private final UnaryOperator<KvServerConfig.Builder> tweak;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    MembershipNodes(Path root, int total, int seeds, int replicationFactor, UnaryOperator<KvServerConfig.Builder> tweak)
            throws Exception {
        this.nodes = new KvServer[total];
        this.seeds = seeds;
        this.replicationFactor = replicationFactor;
        this.tweak = tweak;
        for (int i = 0; i < total; i++) {
            urls.add("http://127.0.0.1:" + TestCluster.freePort());
            dirs.add(root.resolve("node-" + i));
        }
    }

    /** Starts the seed nodes, each listing all of them in --cluster. */
    MembershipNodes startSeeds() throws Exception {
        for (int i = 0; i < seeds; i++) {
            start(i);
        }
        return this;
    }

    KvServerConfig.Builder config(int i) {
        return tweak.apply(KvServerConfig.builder()
                .port(URI.create(urls.get(i)).getPort())
                .self(urls.get(i))
                .dataDirectory(dirs.get(i))
                .network(network -> network.eventLoops(1))
                .replication(replication -> replication.replicationFactor(replicationFactor))
                .network(network -> network.replicaTimeout(Duration.ofSeconds(2)).drainGrace(Duration.ZERO))
                .antiEntropyInterval(Duration.ZERO));
    }

    /** Node {@code i}'s data directory. */
    Path dataDirectory(int i) {
        return dirs.get(i);
    }

    /** Starts node {@code i}: a seed with --cluster, any other with --join through {@code seeds[0]}. */
    void start(int i) throws Exception {
        KvServerConfig.Builder b = config(i);
        if (i < seeds) {
            b.cluster(urls.subList(0, seeds));
        } else {
            b.join(urls.get(0));
        }
        nodes[i] = KvServer.start(b.build()).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    /** Starts node {@code i} as configured by {@code config}; the stage fails as the start does. */
    CompletableFuture<KvServer> startWith(int i, KvServerConfig config) {
        return KvServer.start(config).toCompletableFuture().thenApply(server -> {
            nodes[i] = server;
            return server;
        });
    }

    KvServer node(int i) {
        return nodes[i];
    }

    void stop(int i) throws Exception {
        if (nodes[i] != null) {
            nodes[i].stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            nodes[i] = null;
        }
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(urls.get(node) + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .timeout(Duration.ofSeconds(60)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    ClusterMap map(int node) throws Exception {
        HttpResponse<String> answer = send(node, "GET", "/v0/cluster", null);
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("GET /v0/cluster on " + urls.get(node) + ": " + answer.statusCode() + " " + answer.body());
        }
        return ClusterMapCodec.fromJson(answer.body());
    }

    /**
     * Waits until every running node holds the same map, which no node is changing any more, and returns
     * it; fails after {@code seconds}.
     */
    ClusterMap awaitSameMap(int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<ClusterMap> maps = new ArrayList<>();
        while (true) {
            maps.clear();
            for (int i = 0; i < nodes.length; i++) {
                if (nodes[i] != null) {
                    maps.add(map(i));
                }
            }
            boolean same = maps.stream().distinct().count() == 1 && !maps.get(0).inTransition();
            if (same) {
                return maps.get(0);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("nodes did not converge on one map within " + seconds + " s: " + maps);
            }
            Thread.sleep(100);
        }
    }

    /** The node's {@code /v0/status}. */
    JsonObject status(int node) throws Exception {
        HttpResponse<String> answer = send(node, "GET", "/v0/status", null);
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("GET /v0/status on " + urls.get(node) + ": " + answer.statusCode() + " " + answer.body());
        }
        return new JsonObject(answer.body());
    }

    /** This node's own entries, as its range endpoint streams them. */
    String localRange(int node) throws Exception {
        return send(node, "GET", "/v0/entities?start=%00", null).body();
    }

    @Override
    public void close() throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            stop(i);
        }
    }
}
