package io.kvstore.kvctl;

import io.kvstore.client.KvClient;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Real nodes in the test's JVM, seeded together as one cluster: ports picked first (below the system's
 * ephemeral range, so no outgoing connection takes one before its node binds it), each node in its own
 * data directory, any node stopped on demand.
 */
final class Nodes implements AutoCloseable {
    private static final Random RANDOM = new Random();

    final List<String> urls = new ArrayList<>();
    private final KvServer[] servers;

    /** {@code size} nodes with replication factor {@code rf}, each configured further by {@code tweak}. */
    Nodes(Path root, int size, int rf, UnaryOperator<KvServerConfig.Builder> tweak) throws Exception {
        this(root, size, rf, "http", tweak);
    }

    /** The same with URLs of {@code scheme}: {@code https} for nodes that {@code tweak} gives a certificate. */
    Nodes(Path root, int size, int rf, String scheme, UnaryOperator<KvServerConfig.Builder> tweak) throws Exception {
        servers = new KvServer[size];
        for (int i = 0; i < size; i++) {
            urls.add(scheme + "://127.0.0.1:" + freePort());
        }
        for (int i = 0; i < size; i++) {
            KvServerConfig.Builder config = KvServerConfig.builder()
                    .port(URI.create(urls.get(i)).getPort())
                    .self(urls.get(i))
                    .cluster(urls)
                    .dataDirectory(Files.createDirectories(root.resolve("node-" + i)))
                    .network(network -> network.eventLoops(1).replicaTimeout(Duration.ofSeconds(2)))
                    .replication(replication -> replication.replicationFactor(rf))
                    .antiEntropyInterval(Duration.ZERO);
            servers[i] = KvServer.start(tweak.apply(config).build()).toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    Nodes(Path root, int size, int rf) throws Exception {
        this(root, size, rf, config -> config);
    }

    /** Stores {@code prefix + i} = {@code value + i} for i in [0, count), through one client. */
    void fill(String prefix, int count, String value) {
        try (KvClient client = KvClient.connect(urls.get(0))) {
            for (int i = 0; i < count; i++) {
                client.blocking().put(prefix + i, value + i);
            }
        }
    }

    /** kvctl run with {@code $KVCTL_NODE} the first node. */
    Run kvctl(String... args) {
        return Run.with(Map.of("KVCTL_NODE", urls.get(0)), new byte[0], args);
    }

    String url(int i) {
        return urls.get(i);
    }

    void stop(int i) throws Exception {
        if (servers[i] != null) {
            servers[i].stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
            servers[i] = null;
        }
    }

    @Override
    public void close() throws Exception {
        for (int i = 0; i < servers.length; i++) {
            stop(i);
        }
    }

    /** A port nothing listens on, in [10000, 32768). */
    static int freePort() throws IOException {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = 10_000 + RANDOM.nextInt(22_768);
            try (ServerSocket socket = new ServerSocket(port)) {
                return port;
            } catch (IOException taken) {
                // in use: another
            }
        }
        throw new IOException("no free port in [10000, 32768)");
    }
}
