package io.kvstore.examples.cluster;

import io.kvstore.client.KvClient;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Growing a cluster from three nodes to four, watched with {@code kvctl}. The nodes run in this JVM;
 * kvctl runs as operators run it, a process of its own ({@code java -cp ... io.kvstore.kvctl.Kvctl},
 * as {@code java -jar kvctl.jar} does), and each of its commands is printed before its output. kvctl has
 * no join command: a node joins by starting with {@code --join} (here {@link KvServerConfig.Builder#join})
 * naming any member; kvctl then shows the join as a membership change, follows it to its end, and shows
 * the new map and shares.
 *
 * <pre>java -cp examples/target/examples.jar io.kvstore.examples.cluster.GrowWithKvctl [dir]</pre>
 */
public final class GrowWithKvctl {
    private GrowWithKvctl() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("kvstore-grow-with-kvctl");
        run(dir, System.out);
    }

    static void run(Path dir, PrintStream out) throws Exception {
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            urls.add("http://127.0.0.1:" + freePort());
        }
        List<KvServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(KvServer.start(node(urls.get(i), dir.resolve("node-" + i)).cluster(urls.subList(0, 3)).build())
                        .toCompletableFuture().get());
            }
            try (KvClient client = KvClient.connect(urls.get(0))) {
                for (int i = 0; i < 300; i++) {
                    client.blocking().put("key-" + i, "value-" + i);
                }
            }
            out.println("three nodes hold 300 keys");
            kvctl(out, urls.get(0), "status");

            // The fourth node asks a member to join; start completes once the claimant accepted the join.
            KvServer fourth = KvServer.start(node(urls.get(3), dir.resolve("node-3")).join(urls.get(0)).build())
                    .toCompletableFuture().get();
            nodes.add(fourth);
            out.println("started " + urls.get(3) + " with join " + urls.get(0));
            String changes = kvctl(out, urls.get(0), "changes");
            String id = changes.lines()
                    .filter(line -> line.contains(" join ") && line.contains(urls.get(3)))
                    .map(line -> line.trim().split("\\s+")[0])
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("kvctl changes lists no join of " + urls.get(3)));
            kvctl(out, urls.get(0), "changes", "--follow", id, "--poll-ms", "100");
            fourth.joined().toCompletableFuture().get(); // the node's own view: it is a normal member now
            kvctl(out, urls.get(0), "status");
            kvctl(out, urls.get(0), "ring");
            try (KvClient client = KvClient.connect(urls.get(3));
                 RangeIterator range = client.range(bytes("key-"), bytes("key."))) {
                int count = 0;
                while (range.hasNext()) {
                    range.next();
                    count++;
                }
                out.println();
                out.println("four nodes hold " + count + " keys");
            }
        } finally {
            List<CompletableFuture<Void>> stopping = new ArrayList<>();
            for (KvServer node : nodes) {
                stopping.add(node.stop().toCompletableFuture());
            }
            CompletableFuture.allOf(stopping.toArray(new CompletableFuture[0])).get();
        }
    }

    private static KvServerConfig.Builder node(String url, Path dataDirectory) {
        return KvServerConfig.builder()
                .port(URI.create(url).getPort())
                .self(url)
                .dataDirectory(dataDirectory)
                .network(network -> network.eventLoops(1));
    }

    /**
     * Runs {@code kvctl --node NODE args...} in a JVM of its own, on this program's class path, prints the
     * command, its stdout and its stderr (progress, warnings), and returns its stdout.
     */
    static String kvctl(PrintStream out, String node, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "io.kvstore.kvctl.Kvctl", "--node", node));
        command.addAll(List.of(args));
        out.println();
        out.println("$ kvctl --node " + node + " " + String.join(" ", args));
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close(); // no command here reads stdin
        CompletableFuture<byte[]> stderr = CompletableFuture.supplyAsync(() -> readAll(process));
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("kvctl " + String.join(" ", args) + " did not end within 60 s");
        }
        out.print(stdout);
        String err = new String(stderr.join(), StandardCharsets.UTF_8);
        err.lines().forEach(line -> out.println("  (stderr) " + line));
        if (process.exitValue() != 0) {
            throw new IllegalStateException("kvctl " + String.join(" ", args) + " exited " + process.exitValue());
        }
        return stdout;
    }

    private static byte[] readAll(Process process) {
        try {
            return process.getErrorStream().readAllBytes();
        } catch (IOException e) {
            return ("cannot read stderr: " + e).getBytes(StandardCharsets.UTF_8);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
