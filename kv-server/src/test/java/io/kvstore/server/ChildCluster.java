package io.kvstore.server;

import io.kvstore.server.wire.Headers;
import io.kvstore.server.wire.InternalCodec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of {@link ChildServer}s, one JVM per node, on free ports: nodes can be killed with SIGKILL,
 * frozen with SIGSTOP and thawed with SIGCONT, and restarted on their data.
 */
final class ChildCluster implements AutoCloseable {
    private final Path root;
    private final List<Integer> ports = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private final ChildServer[] nodes;
    private final String[] flags;
    private final List<TestCluster> clients = new ArrayList<>();

    /** Starts {@code size} nodes, each with {@code flags} besides its port, data directory and the cluster. */
    ChildCluster(Path root, int size, String... flags) throws Exception {
        this.root = root;
        this.flags = flags;
        this.nodes = new ChildServer[size];
        for (int i = 0; i < size; i++) {
            int port = TestCluster.freePort();
            ports.add(port);
            urls.add("http://127.0.0.1:" + port);
            clients.add(TestCluster.client(port));
        }
        for (int i = 0; i < size; i++) {
            start(i);
        }
        for (int i = 0; i < size; i++) {
            for (int peer = 0; peer < size; peer++) {
                if (peer != i) {
                    int node = i;
                    int other = peer;
                    await("node " + node + " has heard from node " + other, () -> seen(node, other));
                }
            }
        }
    }

    /** Whether node {@code node} had an answer from {@code peer} (its connections to it are open). */
    boolean seen(int node, int peer) throws Exception {
        JsonObject entry = peer(node, peer);
        return "up".equals(entry.getString("state")) && entry.getValue("lastSeenMillis") != null;
    }

    void start(int node) throws Exception {
        List<String> all = new ArrayList<>(List.of("--cluster", String.join(",", urls), "--self", urls.get(node),
                "--event-loops", "1", "--replica-timeout-ms", "1000"));
        all.addAll(List.of(flags));
        nodes[node] = ChildServer.start(ports.get(node), root.resolve("node-" + node), "-XX:TieredStopAtLevel=1", all.toArray(new String[0]));
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. */
    void kill(int node) throws Exception {
        nodes[node].process.destroyForcibly();
        if (!nodes[node].process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("node " + node + " did not die");
        }
        nodes[node] = null;
    }

    /** SIGTERM, and the wait for a clean exit (status 0 or the JVM's 143 for a handled SIGTERM). */
    void terminate(int node) throws Exception {
        nodes[node].terminate();
        if (!nodes[node].process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("node " + node + " did not stop within 60 s of SIGTERM");
        }
        int status = nodes[node].process.exitValue();
        if (status != 0 && status != 143) {
            throw new AssertionError("node " + node + " exited with " + status + " after SIGTERM");
        }
        nodes[node] = null;
    }

    void freeze(int node) throws Exception {
        nodes[node].signal("STOP");
    }

    void thaw(int node) throws Exception {
        nodes[node].signal("CONT");
    }

    TestCluster client(int node) {
        return clients.get(node);
    }

    String url(int node) {
        return urls.get(node);
    }

    /** The version node {@code node} holds itself: "absent", "tombstone" or the value. */
    String local(int node, String key) throws Exception {
        HttpResponse<byte[]> answer = clients.get(node).send(0, "GET",
                InternalCodec.readUri(key.getBytes(StandardCharsets.UTF_8)), null);
        if (answer.statusCode() == 404) {
            return "absent";
        }
        if (answer.statusCode() != 200) {
            throw new IOException("node " + node + " answered " + answer.statusCode() + " for its copy of " + key);
        }
        if ("true".equals(answer.headers().firstValue(Headers.TOMBSTONE).orElse(null))) {
            return "tombstone";
        }
        return new String(answer.body(), StandardCharsets.UTF_8);
    }

    JsonObject status(int node) throws Exception {
        return new JsonObject(new String(clients.get(node).send(0, "GET", "/v0/status", null).body(), StandardCharsets.UTF_8));
    }

    /** The entry of {@code peer} in the {@code peers} of node {@code node}'s status. */
    JsonObject peer(int node, int peer) throws Exception {
        JsonArray peers = status(node).getJsonArray("peers");
        for (int i = 0; i < peers.size(); i++) {
            if (peers.getJsonObject(i).getString("url").equals(urls.get(peer))) {
                return peers.getJsonObject(i);
            }
        }
        throw new AssertionError("node " + node + " does not list " + urls.get(peer) + " among its peers: " + peers);
    }

    /** Waits (polling, up to 60 s) until {@code condition} holds. */
    static void await(String what, Check condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(50);
        }
    }

    /** A condition that may do requests. */
    interface Check {
        boolean holds() throws Exception;
    }

    @Override
    public void close() throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                nodes[i].signal("CONT");
                nodes[i].process.destroyForcibly();
                nodes[i].process.waitFor(30, TimeUnit.SECONDS);
                nodes[i] = null;
            }
        }
    }
}
