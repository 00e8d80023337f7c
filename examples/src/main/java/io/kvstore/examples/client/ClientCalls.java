package io.kvstore.examples.client;

import io.kvstore.client.CallOptions;
import io.kvstore.client.InvalidRequestException;
import io.kvstore.client.KeyValue;
import io.kvstore.client.KvClient;
import io.kvstore.client.KvClientException;
import io.kvstore.client.QuorumNotReachedException;
import io.kvstore.client.RangeIterator;
import io.kvstore.server.KvServer;
import io.kvstore.server.config.KvServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The Java client, {@link KvClient}, against three nodes started in this JVM: blocking calls, the same
 * calls asynchronously ({@link CompletableFuture}), a range read, and what each failure looks like:
 *
 * <ul>
 *   <li>a key not found is no error: an empty {@link Optional};</li>
 *   <li>{@link IllegalArgumentException}: options that can never be valid ({@code ack > from}), before anything is sent;</li>
 *   <li>{@link InvalidRequestException} (400, 413, 414): the node refused the request as malformed, e.g. more replicas
 *       asked for than the cluster has; sending it again will not help;</li>
 *   <li>{@link QuorumNotReachedException} (504): fewer than {@code ack} replicas answered in time; a write may still
 *       have reached some of them (there is no rollback), so retry it or read to find out;</li>
 *   <li>{@link KvClientException} with {@code status() == 0}: no node answered at all.</li>
 * </ul>
 *
 * <p>A node that sheds load answers 503, an {@code OverloadedException} whose {@code retryAfter()} says when to retry.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.client.ClientCalls [dir]</pre>
 */
public final class ClientCalls {
    private ClientCalls() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("kvstore-client-calls");
        run(dir, System.out);
    }

    static void run(Path dir, PrintStream out) throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            urls.add("http://127.0.0.1:" + freePort());
        }
        List<KvServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(KvServer.start(KvServerConfig.builder()
                        .port(URI.create(urls.get(i)).getPort())
                        .self(urls.get(i))
                        .cluster(urls)
                        .dataDirectory(dir.resolve("node-" + i))
                        // No other clients to redirect while a node drains: a stopping node stops at once.
                        .network(network -> network.eventLoops(1).replicaTimeout(Duration.ofSeconds(1)).drainGrace(Duration.ZERO))
                        .build()).toCompletableFuture().get());
            }
            // Any one node is enough to start from: the client reads the cluster map from it.
            try (KvClient client = KvClient.connect(urls.get(0))) {
                blocking(client, out);
                asynchronous(client, out);
                range(client, out);
                failures(client, nodes, out);
            }
            try (KvClient nobody = KvClient.connect("http://127.0.0.1:" + freePort())) {
                nobody.blocking().getString("user:1");
                out.println("no node: answered, unexpectedly");
            } catch (KvClientException e) {
                out.println("no node: KvClientException, status " + e.status() + " (no node answered; " + e.getMessage() + ")");
            }
        } finally {
            List<CompletableFuture<Void>> stopping = new ArrayList<>();
            for (KvServer node : nodes) {
                stopping.add(node.stop().toCompletableFuture());
            }
            CompletableFuture.allOf(stopping.toArray(new CompletableFuture[0])).get();
        }
    }

    private static void blocking(KvClient client, PrintStream out) {
        client.blocking().put("user:1", "Ada");
        out.println("blocking: get user:1 -> " + client.blocking().getString("user:1").orElse("(absent)"));
        // Not found is an answer, not an error.
        out.println("blocking: get user:404 -> " + client.blocking().getString("user:404").orElse("(absent)"));
    }

    private static void asynchronous(KvClient client, PrintStream out) {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 2; i <= 5; i++) {
            writes.add(client.put(bytes("user:" + i), bytes("user number " + i)).toCompletableFuture());
        }
        // Four writes in flight at once; join() waits for them only here, at the end.
        CompletableFuture.allOf(writes.toArray(new CompletableFuture[0])).join();
        String value = client.get(bytes("user:3"), CallOptions.DEFAULT.ack(1)).toCompletableFuture()
                .thenApply(found -> found.map(ClientCalls::text).orElse("(absent)"))
                .join();
        out.println("async: 4 puts completed; get user:3 ack=1 -> " + value);
    }

    private static void range(KvClient client, PrintStream out) {
        out.println("range [user:2, user:5):");
        // A RangeIterator streams with back-pressure and must be closed.
        try (RangeIterator entries = client.range(bytes("user:2"), bytes("user:5"))) {
            while (entries.hasNext()) {
                KeyValue entry = entries.next();
                out.println("  " + text(entry.key()) + " = " + text(entry.value()));
            }
        }
    }

    private static void failures(KvClient client, List<KvServer> nodes, PrintStream out) throws Exception {
        try {
            CallOptions.DEFAULT.from(2).ack(3);
        } catch (IllegalArgumentException e) {
            out.println("ack 3 of 2: IllegalArgumentException before sending (" + e.getMessage() + ")");
        }
        try {
            client.blocking().get(bytes("user:1"), CallOptions.DEFAULT.from(4));
        } catch (InvalidRequestException e) {
            out.println("from=4 of 3 nodes: InvalidRequestException, status " + e.status()
                    + " (the node refused the request as it is: " + e.getMessage() + ")");
        }
        nodes.get(2).stop().toCompletableFuture().get();
        out.println("stopped " + nodes.get(2).config().self());
        client.blocking().put(bytes("user:6"), bytes("still stored"), CallOptions.DEFAULT.ack(2).from(3));
        out.println("put user:6 ack=2 from=3 with a node down -> stored");
        try {
            client.blocking().put(bytes("user:7"), bytes("maybe"), CallOptions.DEFAULT.ack(3).from(3));
        } catch (QuorumNotReachedException e) {
            out.println("put user:7 ack=3 from=3 with a node down -> QuorumNotReachedException, status " + e.status()
                    + " (fewer than ack replicas answered; the value may be on some of them)");
        }
        // The same failure asynchronously: the future completes exceptionally with it.
        String outcome = client.get(bytes("user:6"), CallOptions.DEFAULT.ack(3).from(3)).toCompletableFuture()
                .handle((value, error) -> error == null ? "answered" : unwrap(error).getClass().getSimpleName())
                .join();
        out.println("async get user:6 ack=3 from=3 with a node down -> " + outcome);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
