package io.kvstore.client;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Partitioners;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import io.kvstore.cluster.membership.NodeUrl;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the client knows of the cluster: its nodes in configured order, the partitioner the nodes use
 * (rebuilt here from the cluster map, so the client places keys exactly as they do), the replication
 * factor, the map's epoch and which nodes seem down. Immutable but for the liveness marks, which
 * requests set and clear concurrently.
 */
final class RoutingTable {
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

    private RoutingTable(long epoch, List<String> nodes, Partitioner partitioner, int replicationFactor, boolean[] serving) {
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

    /** A table of just {@code seeds}, for round-robin routing: no partitioner is read or needed. */
    static RoutingTable ofSeeds(List<String> seeds) {
        return new RoutingTable(0, seeds, null, seeds.size(), serving(seeds.size()));
    }

    /**
     * The table of {@code GET /v0/cluster}, the cluster map in its JSON form ({@link ClusterMapCodec}):
     * every node of the map, in map order, with the map's partitioner over them (allocated ring tokens
     * included); the nodes that own no ranges yet take no requests.
     *
     * @throws IllegalArgumentException naming {@code source} and what is missing or malformed
     */
    static RoutingTable fromClusterMap(String json, String source) {
        ClusterMap map;
        try {
            map = ClusterMapCodec.fromJson(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the cluster map from " + source + " is not valid: " + e.getMessage(), e);
        }
        List<String> nodes = map.urls();
        List<String> owners = map.owners();
        boolean[] serving = new boolean[nodes.size()];
        for (int i = 0; i < serving.length; i++) {
            serving[i] = owners.contains(nodes.get(i));
        }
        return new RoutingTable(map.epoch(), nodes, map.placement(nodes), Math.min(map.replicationFactor(), nodes.size()),
                serving);
    }

    /**
     * The table of {@code GET /v0/status}, for a node that serves no cluster map: its {@code cluster} (the
     * node URLs), {@code partitioner} (a name, or an object with {@code name} and {@code virtualNodes}) and
     * {@code virtualNodes}; epoch 0, every node serving.
     *
     * @throws IllegalArgumentException naming {@code source} and what is missing or malformed
     */
    static RoutingTable fromStatus(String json, String source) {
        JsonObject status;
        try {
            status = new JsonObject(json);
        } catch (DecodeException e) {
            throw new IllegalArgumentException("the status from " + source + " is not JSON: " + e.getMessage());
        }
        List<String> nodes = new ArrayList<>();
        if (status.getJsonArray("cluster") != null) {
            for (Object url : status.getJsonArray("cluster")) {
                nodes.add((String) url);
            }
        }
        if (nodes.isEmpty() || nodes.contains(null)) {
            throw new IllegalArgumentException("the status from " + source + " lists no nodes or a node without url: " + json);
        }
        Object partitionerField = status.getValue("partitioner");
        String name;
        int virtualNodes = status.getInteger("virtualNodes", Partitioners.DEFAULT_VIRTUAL_NODES);
        if (partitionerField instanceof JsonObject) {
            JsonObject p = (JsonObject) partitionerField;
            name = p.getString("name");
            virtualNodes = p.getInteger("virtualNodes", virtualNodes);
        } else {
            name = (String) partitionerField;
        }
        int replicationFactor = status.getInteger("replicationFactor", nodes.size());
        return new RoutingTable(status.getLong("epoch", 0L), nodes, Partitioners.create(name, nodes, virtualNodes),
                Math.min(replicationFactor, nodes.size()), serving(nodes.size()));
    }

    private static boolean[] serving(int nodes) {
        boolean[] serving = new boolean[nodes];
        Arrays.fill(serving, true);
        return serving;
    }

    /**
     * This one-node table with its node called {@code url}, the address the client reached it at: a single
     * node may not know its own (started on port 0, it calls itself {@code http://localhost:0}), and with
     * one node the partitioner places every key there whatever its name.
     */
    RoutingTable withOnlyNode(String url) {
        if (nodes.get(0).equals(url)) {
            return this;
        }
        return new RoutingTable(epoch, List.of(url), Partitioners.create("modn", List.of(url)), 1, serving);
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

    /** Carries the down marks of {@code older} over to the nodes this table shares with it. */
    void inheritLiveness(RoutingTable older) {
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

    /**
     * The first node after {@code start}, in ring order, that is not among {@code tried}: a usable one if
     * any, else any; {@code start} if every node was tried.
     */
    int untried(int start, List<String> tried, long now) {
        int fallback = start;
        for (int i = 1; i < addresses.length; i++) {
            int node = (start + i) % addresses.length;
            if (!tried.contains(nodes.get(node))) {
                if (usable(node, now)) {
                    return node;
                }
                if (fallback == start) {
                    fallback = node;
                }
            }
        }
        return fallback;
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
