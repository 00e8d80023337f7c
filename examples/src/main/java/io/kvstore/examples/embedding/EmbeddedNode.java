package io.kvstore.examples.embedding;

import io.kvstore.core.Compression;
import io.kvstore.core.SyncPolicy;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A server node as a library object: built from a {@link KvServerConfig} in code (no command line, no
 * file), started in this JVM on a free port, used over HTTP as any client would, and stopped, which
 * finishes the requests in flight and closes the store. {@link EmbeddedStore} embeds the storage
 * engine alone, without a server.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.embedding.EmbeddedNode [dir]</pre>
 */
public final class EmbeddedNode {
    private EmbeddedNode() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("kvstore-embedded-node");
        run(dir, System.out);
    }

    static void run(Path dir, PrintStream out) throws Exception {
        KvServerConfig config = KvServerConfig.builder()
                .port(0)                                            // any free port; server.port() says which
                .dataDirectory(dir)
                .store(store -> store.syncPolicy(SyncPolicy.GROUP_COMMIT).compression(Compression.ZSTD))
                .network(network -> network.eventLoops(1))
                .build();
        KvServer server = KvServer.start(config).toCompletableFuture().get();
        String base = "http://127.0.0.1:" + server.port();
        out.println("node listening on " + base + ", data in " + dir.getFileName());
        HttpClient http = HttpClient.newHttpClient();
        try {
            for (String key : new String[] {"city:1", "city:2", "city:3"}) {
                send(http, out, "PUT", base + "/v0/entity?id=" + key, "value of " + key);
            }
            send(http, out, "GET", base + "/v0/entity?id=city:2", null);
            send(http, out, "GET", base + "/v0/entity?id=city:9", null);
            send(http, out, "DELETE", base + "/v0/entity?id=city:1", null);
            send(http, out, "GET", base + "/v0/entities?start=city:&end=city;", null);
        } finally {
            server.stop().toCompletableFuture().get();
        }
        out.println("node stopped");
        try {
            http.send(HttpRequest.newBuilder(URI.create(base + "/v0/status")).build(), HttpResponse.BodyHandlers.ofString());
            out.println("GET /v0/status after stop -> answered, unexpectedly");
        } catch (ConnectException e) {
            out.println("GET /v0/status after stop -> connection refused");
        }
    }

    /**
     * Sends one request and prints its method, path, status and body, each newline as {@code \n}: a range
     * answers one chunk per entry, the key, a newline and the value, which arrive here joined.
     */
    private static void send(HttpClient http, PrintStream out, String method, String url, String body)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        String path = url.substring(url.indexOf("/v0/"));
        out.printf("%-6s %-36s -> %d %s%n", method, path, response.statusCode(),
                response.body().stripTrailing().replace("\n", "\\n"));
    }
}
