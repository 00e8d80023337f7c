package io.kvstore.cluster.membership;

import io.kvstore.cluster.Partitioner;

/**
 * Which keys one node sends where when placement changes from one map's owners to another's. A node
 * sends a key it is a replica of before to every node that is a replica of it after but not before;
 * it does so only if it stops being a replica itself (join, decommission: the node that loses a key
 * hands over exactly what it held, so a write acknowledged by a quorum keeps a quorum of holders), or
 * if the change removes a dead node (then every surviving replica sends, since the node that lost the
 * key cannot).
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
