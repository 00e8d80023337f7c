package io.kvstore.examples.cluster;

import io.kvstore.client.CallOptions;
import io.kvstore.client.KvClient;
import io.kvstore.client.QuorumNotReachedException;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Three nodes in one JVM on loopback and a {@link KvClient}: write with ack=2 of 3, stop the node the
 * client sent the write to, read with 2 of 3 (the client now goes to another replica), and print what
 * happened at each step.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.cluster.LocalCluster [dir]</pre>
 */
public final class LocalCluster {
    private LocalCluster() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("kvstore-local-cluster");
        run(dir, System.out);
    }

    static void run(Path dir, PrintStream out) throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            urls.add("http://127.0.0.1:" + freePort());
        }
        List<KvServer> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            KvServerConfig config = KvServerConfig.builder()
                    .port(URI.create(urls.get(i)).getPort())
                    .self(urls.get(i))
                    .cluster(urls)
                    .dataDirectory(dir.resolve("node-" + i))
                    .network(network -> network.eventLoops(1))
                    .build();
            nodes.add(KvServer.start(config).toCompletableFuture().get());
        }
        out.println("started " + urls);
        CallOptions twoOfThree = CallOptions.DEFAULT.ack(2).from(3);
        byte[] key = "greeting".getBytes(StandardCharsets.UTF_8);
        try (KvClient client = KvClient.connect(urls.toArray(new String[0]))) {
            client.blocking().put(key, "hello, cluster".getBytes(StandardCharsets.UTF_8), twoOfThree);
            out.println("PUT  greeting ack=2 from=3 -> stored (sent to " + client.nodeFor(key, twoOfThree)
                    + ", a replica of the key)");
            int stopped = urls.indexOf(client.nodeFor(key, twoOfThree));
            nodes.get(stopped).stop().toCompletableFuture().get();
            nodes.set(stopped, null);
            out.println("stopped node " + stopped + ", the one the client sent the write to");
            Optional<byte[]> read = client.blocking().get(key, twoOfThree);
            out.println("GET  greeting ack=2 from=3 -> " + read.map(v -> new String(v, StandardCharsets.UTF_8)).orElse("absent")
                    + " (from " + client.nodeFor(key, twoOfThree) + ")");
            try {
                client.blocking().get(key, twoOfThree.ack(3));
                out.println("GET  greeting ack=3 from=3 -> answered, unexpectedly");
            } catch (QuorumNotReachedException e) {
                out.println("GET  greeting ack=3 from=3 -> 504 not enough replicas (only two are up)");
            }
        } finally {
            for (KvServer node : nodes) {
                if (node != null) {
                    node.stop().toCompletableFuture().get();
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
