package io.kvstore.client;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.NodeUrl;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the client knows of the cluster: its nodes in configured order, the partitioner the nodes use
 * (rebuilt here from its name and parameters, so the client places keys exactly as they do), the
 * replication factor, the map's epoch and which nodes seem down. Immutable but for the liveness marks,
 * which requests set and clear concurrently.
 */
final class ClusterMap {
    /** Node states of {@code GET /v0/cluster} that serve requests; a node without a state does too. */
    private static final List<String> SERVING_STATES = List.of("normal", "up", "leaving");

    final long epoch;
    final List<String> nodes;
    final SocketAddress[] addresses;
    final Partitioner partitioner;
    final int replicationFactor;
    private final boolean[] serving;
    /** The first time a node that failed to answer is avoided; it doubles with each failure in a row. */
    private static final long FIRST_DOWN_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long LONGEST_DOWN_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** Per node, {@link System#nanoTime()} until which it counts as down; 0: up. */
    private final AtomicLongArray downUntil;
    /** Per node, failures to answer since its last answer. */
    private final AtomicIntegerArray failures;

    private ClusterMap(long epoch, List<String> nodes, Partitioner partitioner, int replicationFactor, boolean[] serving) {
        this.epoch = epoch;
        this.nodes = List.copyOf(nodes);
        this.partitioner = partitioner;
        this.replicationFactor = replicationFactor;
        this.serving = serving;
        this.addresses = new SocketAddress[nodes.size()];
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = address(nodes.get(i));
        }
        this.downUntil = new AtomicLongArray(nodes.size());
        this.failures = new AtomicIntegerArray(nodes.size());
    }

    /** A map of just {@code seeds}, for round-robin routing: no partitioner is read or needed. */
    static ClusterMap ofSeeds(List<String> seeds) {
        boolean[] serving = new boolean[seeds.size()];
        java.util.Arrays.fill(serving, true);
        return new ClusterMap(0, seeds, null, seeds.size(), serving);
    }

    /**
     * Parses {@code GET /v0/cluster} ({@code epoch}, {@code replicationFactor}, {@code partitioner} as a
     * name or as an object with {@code name} and {@code virtualNodes}, {@code nodes: [{url, state, tokens}]},
     * where allocated ring tokens make the ring over the nodes' own tokens) or
     * {@code GET /v0/status} ({@code cluster}: the URLs, {@code partitioner}, {@code virtualNodes}; epoch 0).
     *
     * @throws IllegalArgumentException naming what is missing or malformed
     */
    static ClusterMap parse(String json, String source) {
        JsonObject map;
        try {
            map = new JsonObject(json);
        } catch (DecodeException e) {
            throw new IllegalArgumentException("the cluster map from " + source + " is not JSON: " + e.getMessage());
        }
        List<String> nodes = new ArrayList<>();
        List<Boolean> states = new ArrayList<>();
        List<long[]> tokens = new ArrayList<>();
        JsonArray members = map.getJsonArray("nodes");
        if (members != null) {
            for (int i = 0; i < members.size(); i++) {
                JsonObject node = members.getJsonObject(i);
                nodes.add(node.getString("url"));
                String state = node.getString("state");
                states.add(state == null || SERVING_STATES.contains(state.toLowerCase(Locale.ROOT)));
                JsonArray nodeTokens = node.getJsonArray("tokens");
                if (nodeTokens != null) {
                    tokens.add(tokens(nodeTokens, source));
                }
            }
        } else if (map.getJsonArray("cluster") != null) {
            for (Object url : map.getJsonArray("cluster")) {
                nodes.add((String) url);
                states.add(true);
            }
        }
        if (nodes.isEmpty() || nodes.contains(null)) {
            throw new IllegalArgumentException("the cluster map from " + source + " lists no nodes or a node without url: " + json);
        }
        Object partitionerField = map.getValue("partitioner");
        String name;
        int virtualNodes = map.getInteger("virtualNodes", Partitioners.DEFAULT_VIRTUAL_NODES);
        if (partitionerField instanceof JsonObject) {
            JsonObject p = (JsonObject) partitionerField;
            name = p.getString("name");
            virtualNodes = p.getInteger("virtualNodes", virtualNodes);
        } else {
            name = (String) partitionerField;
        }
        if (!tokens.isEmpty() && tokens.size() != nodes.size()) {
            throw new IllegalArgumentException("the cluster map from " + source + " gives tokens to some nodes only: " + json);
        }
        Partitioner partitioner = tokens.isEmpty() ? Partitioners.create(name, nodes, virtualNodes) : Partitioners.ring(nodes, tokens);
        int replicationFactor = map.getInteger("replicationFactor", nodes.size());
        boolean[] serving = new boolean[nodes.size()];
        for (int i = 0; i < serving.length; i++) {
            serving[i] = states.get(i);
        }
        return new ClusterMap(map.getLong("epoch", 0L), nodes, partitioner, Math.min(replicationFactor, nodes.size()), serving);
    }

    /** A node's allocated ring tokens: decimal strings of signed 64-bit integers. */
    private static long[] tokens(JsonArray values, String source) {
        long[] tokens = new long[values.size()];
        for (int i = 0; i < tokens.length; i++) {
            Object value = values.getValue(i);
            try {
                tokens[i] = value instanceof Number ? ((Number) value).longValue() : Long.parseLong(String.valueOf(value));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the cluster map from " + source + " has a token that is not a 64-bit integer: "
                        + value);
            }
        }
        return tokens;
    }

    /**
     * This one-node map with its node called {@code url}, the address the client reached it at: a single
     * node may not know its own (started on port 0, it calls itself {@code http://localhost:0}), and with
     * one node the partitioner places every key there whatever its name.
     */
    ClusterMap withOnlyNode(String url) {
        if (nodes.get(0).equals(url)) {
            return this;
        }
        return new ClusterMap(epoch, List.of(url), Partitioners.create("modn", List.of(url)), 1, serving);
    }

    static SocketAddress address(String url) {
        NodeUrl node = NodeUrl.parse(url);
        return SocketAddress.inetSocketAddress(node.port(), node.host());
    }

    int size() {
        return addresses.length;
    }

    boolean usable(int node, long now) {
        long until = downUntil.get(node);
        return serving[node] && (until == 0 || now - until >= 0);
    }

    /** The node did not answer: it is avoided for a while, twice as long as last time if it failed then too. */
    void markDown(int node, long now) {
        int inARow = Math.min(failures.getAndIncrement(node), 5);
        downUntil.set(node, now + Math.min(FIRST_DOWN_NANOS << inARow, LONGEST_DOWN_NANOS));
    }

    void markUp(int node) {
        if (downUntil.get(node) != 0 || failures.get(node) != 0) {
            downUntil.set(node, 0);
            failures.set(node, 0);
        }
    }

    /** Carries the down marks of {@code older} over to the nodes this map shares with it. */
    void inheritLiveness(ClusterMap older) {
        for (int i = 0; i < older.nodes.size(); i++) {
            int here = nodes.indexOf(older.nodes.get(i));
            if (here >= 0) {
                downUntil.set(here, older.downUntil.get(i));
                failures.set(here, older.failures.get(i));
            }
        }
    }

    /**
     * The node to send a request for {@code key} to: the first usable of its {@code count} replicas, else
     * any usable node (every node coordinates any key), else the primary replica. Allocation-free
     * while the primary is up.
     */
    int route(byte[] key, int count, long now) {
        int primary = partitioner.primary(key);
        if (usable(primary, now)) {
            return primary;
        }
        int[] replicas = partitioner.replicas(key, count, new int[count]);
        for (int i = 1; i < count; i++) {
            if (usable(replicas[i], now)) {
                return replicas[i];
            }
        }
        return anyUsable(primary, now);
    }

    /** The first usable node at or after {@code start}, in ring order, else {@code start}. */
    int anyUsable(int start, long now) {
        for (int i = 0; i < addresses.length; i++) {
            int node = (start + i) % addresses.length;
            if (usable(node, now)) {
                return node;
            }
        }
        return start;
    }
}
