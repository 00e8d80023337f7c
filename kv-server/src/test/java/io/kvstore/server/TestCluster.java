package io.kvstore.server;

import io.kvstore.server.config.KvServerConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * Real nodes in this JVM, on real sockets: free ports are picked first (a cluster needs its addresses
 * up front), each node keeps its data in its own directory, and any node can be stopped and restarted.
 */
final class TestCluster {
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private final List<String> urls = new ArrayList<>();
    private final List<Path> dirs = new ArrayList<>();
    private final KvServer[] nodes;
    private final UnaryOperator<KvServerConfig.Builder> tweak;
    final HttpClient http;

    TestCluster(Path root, int size, UnaryOperator<KvServerConfig.Builder> tweak) throws Exception {
        this(root, size, tweak, null);
    }

    /** With {@code tls} (a context trusting the nodes' CA), the nodes' URLs are https and so are the test's requests. */
    TestCluster(Path root, int size, UnaryOperator<KvServerConfig.Builder> tweak, javax.net.ssl.SSLContext tls) throws Exception {
        this.tweak = tweak;
        this.nodes = new KvServer[size];
        this.http = client(tls);
        for (int i = 0; i < size; i++) {
            urls.add((tls == null ? "http" : "https") + "://127.0.0.1:" + freePort());
            dirs.add(root.resolve("node-" + i));
        }
        for (int i = 0; i < size; i++) {
            start(i);
        }
    }

    /** A client for a node running elsewhere (another process): start and stop are not available. */
    private TestCluster(int port) {
        this.tweak = b -> b;
        this.http = client(null);
        this.nodes = new KvServer[1];
        urls.add("http://127.0.0.1:" + port);
    }

    static TestCluster client(int port) {
        return new TestCluster(port);
    }

    TestCluster(Path root, int size) throws Exception {
        this(root, size, b -> b);
    }

    private static HttpClient client(javax.net.ssl.SSLContext tls) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5));
        return (tls == null ? builder : builder.sslContext(tls)).build();
    }

    /** Ports handed out lie in [10000, the system's first ephemeral port). */
    private static final int LOWEST_PORT = 10_000;

    /**
     * A port free now and never handed out before in this JVM, below the system's ephemeral range: a
     * node is bound to its port some time after it is chosen (after the nodes before it started, or
     * after a restart), and a port of that range may meanwhile become the local port of any outgoing
     * connection, which no connection takes from below it.
     */
    static int freePort() throws IOException {
        int below = firstEphemeralPort();
        java.util.Random random = new java.util.Random();
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = LOWEST_PORT + random.nextInt(below - LOWEST_PORT);
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port)) {
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            } catch (java.net.BindException taken) {
                // In use by another process: try another.
            }
        }
        throw new IOException("no free port in [" + LOWEST_PORT + ", " + below + ")");
    }

    /** The first port of Linux's ephemeral range ({@code net.ipv4.ip_local_port_range}), 32768 if unknown. */
    private static int firstEphemeralPort() {
        try {
            String range = java.nio.file.Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            int first = Integer.parseInt(range.split("\\s+")[0]);
            return first > LOWEST_PORT + 1000 ? first : 32768;
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }

    void start(int i) throws Exception {
        KvServerConfig.Builder b = KvServerConfig.builder()
                .port(URI.create(urls.get(i)).getPort())
                .self(urls.get(i))
                .cluster(urls)
                .dataDirectory(dirs.get(i))
                .network(network -> network.eventLoops(1).replicaTimeout(Duration.ofSeconds(2)).drainGrace(Duration.ZERO));
        nodes[i] = KvServer.start(tweak.apply(b).build()).toCompletableFuture().get();
    }

    /** Starts stopping node {@code i} (draining first) and returns at once; the stage completes once it stopped. */
    java.util.concurrent.CompletionStage<Void> beginStop(int i) {
        KvServer node = nodes[i];
        nodes[i] = null;
        return node.stop();
    }

    void stop(int i) throws Exception {
        nodes[i].stop().toCompletableFuture().get();
        nodes[i] = null;
    }

    String url(int i) {
        return urls.get(i);
    }

    int size() {
        return nodes.length;
    }

    HttpResponse<byte[]> send(int node, String method, String pathAndQuery, byte[] body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body);
        HttpRequest request = HttpRequest.newBuilder(URI.create(urls.get(node) + pathAndQuery))
                .method(method, publisher).timeout(Duration.ofSeconds(20)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    int put(int node, String query, String value) throws Exception {
        return send(node, "PUT", "/v0/entity?" + query, value.getBytes(StandardCharsets.UTF_8)).statusCode();
    }

    HttpResponse<byte[]> get(int node, String query) throws Exception {
        return send(node, "GET", "/v0/entity?" + query, null);
    }

    int delete(int node, String query) throws Exception {
        return send(node, "DELETE", "/v0/entity?" + query, null).statusCode();
    }

    /** RFC 3986 percent-encoding of {@code bytes}: everything but unreserved characters is escaped. */
    static String percentEncode(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return out.toString();
    }

    static String percentEncode(String text) {
        return percentEncode(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends raw bytes on a fresh connection and returns everything the node answers until it closes. */
    /** Reads a response's status line and headers, up to and including the blank line after them. */
    static String readHead(java.io.InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed in the headers: " + head);
            }
            head.append((char) c);
        }
        return head.toString();
    }

    /** Sends {@code request} as is and returns the head of the answer (status line and headers). */
    String rawHead(int node, String request) throws IOException {
        try (java.net.Socket socket = sendRaw(node, request)) {
            return readHead(socket.getInputStream());
        }
    }

    /**
     * Sends {@code request} as is and returns everything the node answers until it closes the connection
     * (a reset after the answer, as a close with unread input causes, ends it too).
     */
    String raw(int node, String request) throws IOException {
        try (java.net.Socket socket = sendRaw(node, request)) {
            java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
                    answer.write(buffer, 0, n);
                }
            } catch (java.net.SocketException reset) {
                if (answer.size() == 0) {
                    throw reset;
                }
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** A new connection to {@code node} that has sent {@code request}, with a 20 s read timeout. */
    private java.net.Socket sendRaw(int node, String request) throws IOException {
        URI uri = URI.create(urls.get(node));
        java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort());
        try {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** This node's own entries, as its range endpoint streams them. */
    String localRange(int node) throws Exception {
        return new String(send(node, "GET", "/v0/entities?start=%00", null).body(), StandardCharsets.UTF_8);
    }

    void close() throws Exception {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                stop(i);
            }
        }
    }
}
