package io.kvstore.kvctl;

import io.kvstore.cluster.Partitioner;
import io.kvstore.cluster.membership.ClusterMap;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Each owner's share of the keys under a cluster map, as the nodes place them: exact from the token
 * ranges for the {@code ring} partitioner, else counted over a sample of keys placed with the map's
 * own partitioner (kv-placement's, the nodes' code), so that the figure is the nodes' placement, not
 * a model of it.
 */
record KeyShares(List<String> owners, double[] primary, double[] replicas, String method) {

    /** The shares under {@code map}; {@code sampleKeys} keys are placed for partitioners other than {@code ring}. */
    static KeyShares of(ClusterMap map, int sampleKeys) {
        if (map.partitioner().equals("ring")) {
            RingRanges ring = RingRanges.of(map);
            return new KeyShares(ring.owners(), ring.shares(1), ring.shares(map.replicationFactor()), "token ranges");
        }
        Partitioner placement = map.placement();
        List<String> owners = placement.nodes();
        int rf = map.replicationFactor();
        double[] primary = new double[owners.size()];
        double[] replicas = new double[owners.size()];
        int[] placed = new int[rf];
        ByteBuffer key = ByteBuffer.allocate(Long.BYTES);
        for (long i = 0; i < sampleKeys; i++) {
            // Keys spread over the hash space as any keys do: every partitioner hashes the key first.
            placement.replicas(key.putLong(0, i).array(), rf, placed);
            primary[placed[0]]++;
            for (int r = 0; r < rf; r++) {
                replicas[placed[r]]++;
            }
        }
        for (int n = 0; n < owners.size(); n++) {
            primary[n] /= sampleKeys;
            replicas[n] /= sampleKeys;
        }
        return new KeyShares(owners, primary, replicas, sampleKeys + " sampled keys");
    }

    /** The share of {@code node} as the first replica, or -1 if it owns no range (joining, or not in the map). */
    double primaryOf(String node) {
        int index = owners.indexOf(node);
        return index < 0 ? -1 : primary[index];
    }

    /** The share of keys {@code node} holds a replica of, or -1 if it owns no range. */
    double replicasOf(String node) {
        int index = owners.indexOf(node);
        return index < 0 ? -1 : replicas[index];
    }
}
