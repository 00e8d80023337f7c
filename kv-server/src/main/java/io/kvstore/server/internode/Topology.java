package io.kvstore.server.internode;

import io.kvstore.cluster.FailureDetector;
import io.kvstore.cluster.HybridClock;
import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.Quorum;
import io.kvstore.cluster.Replica;
import io.kvstore.cluster.ReplicaCoordinator;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.core.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What one cluster map means for this node's requests: the coordinator over the map's read owners, and,
 * while a node joins or leaves, the pending replicas on the change's other side
 * ({@link ClusterMap#pendingOwners()}: the future owners, or the owners once reads moved). Immutable; a new map makes a new topology, which
 * replaces the old one with one volatile write, so a request reads one field to find its way.
 *
 * <p>A write goes to the key's first {@code from} replicas among the owners, as the coordinator
 * decides, and also to each of its first {@code from} future replicas that is not among those; with P
 * such pending replicas it is acknowledged once {@code ack + P} of all of them stored it ({@link ReplicaCoordinator#write(Entry,
 * Quorum, List, List)}), so that {@code ack} of the key's replicas hold it however the change ends,
 * while a newcomer still warming up delays no write whose current replicas answer. Reads go to the
 * read owners: the owners until the change's streams are done, then the future owners.
 */
public final class Topology {
    private final ClusterMap map;
    private final ReplicaCoordinator coordinator;
    private final FailureDetector detector;
    private final HybridClock clock;
    /** The change's other side ({@link ClusterMap#pendingPlacement()}); null while no change is under way. */
    private final Partitioner future;
    private final Replica[] futureReplicas;
    /** For each future owner, its index among the current owners, or -1. */
    private final int[] futureToCurrent;

    public Topology(ClusterMap map, ReplicaCoordinator coordinator, FailureDetector detector, HybridClock clock,
             List<Replica> futureReplicas) {
        this.map = map;
        this.coordinator = coordinator;
        this.detector = detector;
        this.clock = clock;
        if (map.inTransition()) {
            this.future = map.pendingPlacement();
            this.futureReplicas = futureReplicas.toArray(new Replica[0]);
            List<String> owners = coordinator.partitioner().nodes();
            this.futureToCurrent = new int[future.nodes().size()];
            for (int i = 0; i < futureToCurrent.length; i++) {
                futureToCurrent[i] = owners.indexOf(future.nodes().get(i));
            }
        } else {
            this.future = null;
            this.futureReplicas = null;
            this.futureToCurrent = null;
        }
    }

    public ClusterMap map() {
        return map;
    }

    public ReplicaCoordinator coordinator() {
        return coordinator;
    }

    public FailureDetector detector() {
        return detector;
    }

    public int replicationFactor() {
        return coordinator.replicationFactor();
    }

    public int clusterSize() {
        return coordinator.clusterSize();
    }

    public CompletionStage<Entry> get(byte[] key, Quorum quorum) {
        return coordinator.get(key, quorum);
    }

    public CompletionStage<Void> put(byte[] key, byte[] value, Quorum quorum) {
        return put(key, value, Entry.NEVER, quorum);
    }

    /** See {@link ReplicaCoordinator#put(byte[], byte[], long, Quorum)}: pending replicas get the same expiry. */
    public CompletionStage<Void> put(byte[] key, byte[] value, long expiresAtMillis, Quorum quorum) {
        try {
            return write(version(key, value, expiresAtMillis), quorum);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    public CompletionStage<Void> delete(byte[] key, Quorum quorum) {
        try {
            return write(tombstone(key), quorum);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A new version of {@code key}, stamped by this node's clock: written again as is if a write is retried.
     *
     * @throws IOException if the clock's lease cannot be extended (an
     *                     {@link io.kvstore.core.InsufficientStorageException} on a full disk): the write is refused
     */
    public Entry version(byte[] key, byte[] value, long expiresAtMillis) throws IOException {
        return Entry.value(key, value, now(), expiresAtMillis);
    }

    /** A new tombstone of {@code key}, stamped by this node's clock; fails as {@link #version} does. */
    public Entry tombstone(byte[] key) throws IOException {
        return Entry.tombstone(key, now());
    }

    private long now() throws IOException {
        try {
            return clock.now();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Writes {@code entry} to the key's replicas and, while a change is under way, to its pending ones. */
    public CompletionStage<Void> write(Entry entry, Quorum quorum) {
        if (future == null) {
            return coordinator.write(entry, quorum);
        }
        // The same `from` replicas on both sides: the coordinator writes to the key's first `from` current
        // replicas, so a future one among them needs no extra copy, and any other of the first `from`
        // future replicas does, whatever the replication factor.
        int from = quorum.from();
        int[] was = coordinator.partitioner().replicas(entry.key(), from);
        int[] will = future.replicas(entry.key(), Math.min(from, future.nodes().size()));
        List<Replica> pending = new ArrayList<>(1);
        List<String> pendingNodes = new ArrayList<>(1);
        for (int target : will) {
            int current = futureToCurrent[target];
            if (current >= 0 && contains(was, current)) {
                continue;
            }
            pending.add(futureReplicas[target]);
            pendingNodes.add(future.nodes().get(target));
        }
        return coordinator.write(entry, quorum, pending, pendingNodes);
    }

    private static boolean contains(int[] nodes, int node) {
        for (int n : nodes) {
            if (n == node) {
                return true;
            }
        }
        return false;
    }
}
