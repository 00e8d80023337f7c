package io.kvstore.cluster.partition;

import io.kvstore.cluster.KeyHash;
import io.kvstore.cluster.Partitioner;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Consistent hashing (Karger et al.): each node owns {@code virtualNodes} points on a 64-bit ring,
 * at XXH64 of {@code "<node>#<i>"}; a key belongs to the first point at or after its hash, wrapping
 * around. Replicas beyond the first: keep walking clockwise and take each node not yet chosen.
 *
 * <p>Points live in two primitive arrays sorted by token (tokens, owners), so a lookup is one binary
 * search with no allocation. Balance improves as 1/sqrt(virtualNodes); movement on a join or leave is
 * about 1/(n+1).
 */
public final class RingPartitioner implements Partitioner {
    /** The default number of points per node. */
    public static final int DEFAULT_VIRTUAL_NODES = 256;

    private final List<String> nodes;
    private final long[] tokens;
    private final int[] owners;

    public RingPartitioner(List<String> nodes, int virtualNodes) {
        this.nodes = NodeList.validate(nodes);
        if (virtualNodes < 1) {
            throw new IllegalArgumentException("virtual nodes per node must be >= 1, got " + virtualNodes);
        }
        long total = (long) this.nodes.size() * virtualNodes;
        if (total > 50_000_000) {
            throw new IllegalArgumentException("too many ring points: " + this.nodes.size() + " nodes x "
                    + virtualNodes + " virtual nodes");
        }
        int size = (int) total;
        long[] points = new long[size];
        long[] pointOwners = new long[size];
        for (int node = 0, p = 0; node < this.nodes.size(); node++) {
            for (int v = 0; v < virtualNodes; v++, p++) {
                points[p] = KeyHash.hash((this.nodes.get(node) + "#" + v).getBytes(StandardCharsets.UTF_8));
                pointOwners[p] = node;
            }
        }
        // Sort (token, owner) pairs by token, ties by owner, so equal tokens resolve the same everywhere.
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> points[a] != points[b]
                ? Long.compare(points[a], points[b]) : Long.compare(pointOwners[a], pointOwners[b]));
        this.tokens = new long[size];
        this.owners = new int[size];
        for (int i = 0; i < size; i++) {
            tokens[i] = points[order[i]];
            owners[i] = (int) pointOwners[order[i]];
        }
    }

    @Override
    public List<String> nodes() {
        return nodes;
    }

    @Override
    public int primary(byte[] key) {
        return owners[firstPointAtOrAfter(KeyHash.hash(key))];
    }

    @Override
    public int[] replicas(byte[] key, int count, int[] out) {
        NodeList.checkCount(count, nodes.size(), out);
        int point = firstPointAtOrAfter(KeyHash.hash(key));
        int filled = 0;
        for (int step = 0; filled < count && step < tokens.length; step++) {
            int owner = owners[point];
            if (!NodeList.contains(out, filled, owner)) {
                out[filled++] = owner;
            }
            point = point + 1 == tokens.length ? 0 : point + 1;
        }
        return out;
    }

    private int firstPointAtOrAfter(long hash) {
        int low = 0;
        int high = tokens.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (tokens[mid] < hash) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return low == tokens.length ? 0 : low;
    }
}
