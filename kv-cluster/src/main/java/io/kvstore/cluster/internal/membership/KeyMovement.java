package io.kvstore.cluster.internal.membership;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.NodeState;
import java.util.ArrayList;
import java.util.List;

/**
 * Which keys one node sends where when placement changes from one map's owners to another's. A node
 * sends a key it is a replica of before to every node that is a replica of it after but not before;
 * it does so only if it stops being a replica itself (join, decommission: the node that loses a key
 * hands over exactly what it held, so a write acknowledged by a quorum keeps a quorum of holders), or
 * if the change removes a dead node (then every surviving replica sends, since the node that lost the
 * key cannot).
 *
 * <p>Which nodes lose keys depends on the partitioner, not only on the node that joins or leaves:
 * under {@code modn} and {@code jump} (and for a few keys under {@code maglev}) removing one node
 * also moves keys between the nodes that stay. So every change asks all of {@link #senders()} to
 * stream, and each sends what it loses; a node that loses nothing scans and sends nothing.
 */
public final class KeyMovement {
    private final long id;
    private final ClusterMap before;
    private final ClusterMap after;
    private final boolean fromSurvivors;
    private final Partitioner beforePlacement;
    private final Partitioner afterPlacement;
    private final int beforeCount;
    private final int afterCount;

    /**
     * @param id            names the change (the epoch of the map that started it), for checkpoints
     * @param before        placement is over its {@link ClusterMap#owners()}
     * @param after         placement is over its {@link ClusterMap#owners()}
     * @param fromSurvivors every remaining replica sends, not just the ones that stop being replicas
     */
    public KeyMovement(long id, ClusterMap before, ClusterMap after, boolean fromSurvivors) {
        this.id = id;
        this.before = before;
        this.after = after;
        this.fromSurvivors = fromSurvivors;
        this.beforePlacement = before.placement();
        this.afterPlacement = after.placement();
        this.beforeCount = before.replicationFactor();
        this.afterCount = after.replicationFactor();
    }

    /**
     * The keys a newcomer gains: {@code joining} is the map with {@code url} joining, and after the
     * change it is {@code normal}.
     */
    public static KeyMovement join(long id, ClusterMap joining, String url) {
        return new KeyMovement(id, joining, joining.withState(url, NodeState.NORMAL), false);
    }

    /**
     * The keys that move when {@code url} leaves: {@code leaving} is the map with {@code url} leaving,
     * and after the change it is gone. The leaving node is not the only one that loses keys.
     */
    public static KeyMovement decommission(long id, ClusterMap leaving, String url) {
        return new KeyMovement(id, leaving, leaving.without(url), false);
    }

    /** The keys a dead node held, which its surviving replicas hand to the nodes that gain them. */
    public static KeyMovement removal(long id, ClusterMap before, ClusterMap after) {
        return new KeyMovement(id, before, after, true);
    }

    /**
     * The nodes the change must ask to stream their share, in map order: every owner before the
     * change that is still a member after it when the surviving replicas send, else every owner before
     * it (any of them may stop being a replica of some key).
     */
    public List<String> senders() {
        if (!fromSurvivors) {
            return before.owners();
        }
        List<String> senders = new ArrayList<>();
        for (String owner : before.owners()) {
            if (after.contains(owner)) {
                senders.add(owner);
            }
        }
        return senders;
    }

    public long id() {
        return id;
    }

    public ClusterMap before() {
        return before;
    }

    public ClusterMap after() {
        return after;
    }

    public boolean fromSurvivors() {
        return fromSurvivors;
    }

    /** The nodes after the change, which {@link #targets} indexes point into. */
    public java.util.List<String> afterNodes() {
        return afterPlacement.nodes();
    }

    /**
     * Writes into {@code out} the indexes (into {@link #afterNodes()}) of the nodes {@code self} must
     * send {@code key} to, and returns how many there are.
     *
     * @param self     this node's index among the before owners, or -1 (it then sends nothing)
     * @param out      at least {@link ClusterMap#replicationFactor()} long
     * @param scratchB at least the before map's replication factor long
     * @param scratchA at least the after map's replication factor long
     */
    public int targets(byte[] key, int self, int[] out, int[] scratchB, int[] scratchA) {
        if (self < 0) {
            return 0;
        }
        int[] was = beforePlacement.replicas(key, beforeCount, scratchB);
        if (!contains(was, beforeCount, self)) {
            return 0;
        }
        int[] will = afterPlacement.replicas(key, afterCount, scratchA);
        String selfUrl = beforePlacement.nodes().get(self);
        if (fromSurvivors && !afterPlacement.nodes().contains(selfUrl)) {
            return 0;
        }
        if (!fromSurvivors) {
            for (int i = 0; i < afterCount; i++) {
                if (afterPlacement.nodes().get(will[i]).equals(selfUrl)) {
                    return 0;
                }
            }
        }
        int n = 0;
        for (int i = 0; i < afterCount; i++) {
            String node = afterPlacement.nodes().get(will[i]);
            boolean wasReplica = false;
            for (int j = 0; j < beforeCount && !wasReplica; j++) {
                wasReplica = beforePlacement.nodes().get(was[j]).equals(node);
            }
            if (!wasReplica) {
                out[n++] = will[i];
            }
        }
        return n;
    }

    /** This node's index among the before owners, or -1. */
    public int indexOf(String url) {
        return beforePlacement.nodes().indexOf(url);
    }

    private static boolean contains(int[] nodes, int count, int node) {
        for (int i = 0; i < count; i++) {
            if (nodes[i] == node) {
                return true;
            }
        }
        return false;
    }
}
