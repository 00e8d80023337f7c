package io.kvstore.examples.cluster;

import io.kvstore.server.KvServer;
import io.kvstore.server.KvServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Three nodes in one JVM on loopback: write with ack=2 of 3, stop a node, read with 2 of 3 from
 * another, and print what happened at each step.
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
                    .eventLoops(1)
                    .build();
            nodes.add(KvServer.start(config).toCompletableFuture().get());
        }
        out.println("started " + urls);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try {
            out.println("PUT  id=greeting ack=2 from=3 on node 0 -> "
                    + send(http, "PUT", urls.get(0) + "/v0/entity?id=greeting&ack=2&from=3", "hello, cluster").statusCode());
            nodes.get(0).stop().toCompletableFuture().get();
            nodes.set(0, null);
            out.println("stopped node 0");
            HttpResponse<String> read = send(http, "GET", urls.get(1) + "/v0/entity?id=greeting&ack=2&from=3", null);
            out.println("GET  id=greeting ack=2 from=3 on node 1 -> " + read.statusCode() + " " + read.body());
            out.println("GET  id=greeting ack=3 from=3 on node 1 -> "
                    + send(http, "GET", urls.get(1) + "/v0/entity?id=greeting&ack=3&from=3", null).statusCode()
                    + " (only two replicas are up)");
        } finally {
            for (KvServer node : nodes) {
                if (node != null) {
                    node.stop().toCompletableFuture().get();
                }
            }
        }
    }

    private static HttpResponse<String> send(HttpClient http, String method, String url, String body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body);
        return http.send(HttpRequest.newBuilder(URI.create(url)).method(method, publisher).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
