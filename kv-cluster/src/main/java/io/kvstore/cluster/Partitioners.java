package io.kvstore.cluster;

import io.kvstore.cluster.partition.JumpPartitioner;
import io.kvstore.cluster.partition.MaglevPartitioner;
import io.kvstore.cluster.partition.ModNPartitioner;
import io.kvstore.cluster.partition.RendezvousPartitioner;
import io.kvstore.cluster.partition.RingPartitioner;
import java.util.List;

/**
 * Creates a partitioner by name:
 *
 * <pre>{@code
 * Partitioner p = Partitioners.create("ring", List.of("http://a:8080", "http://b:8080", "http://c:8080"));
 * int[] replicas = p.replicas("user:42".getBytes(UTF_8), 2);
 * String first = p.nodes().get(replicas[0]);
 * }</pre>
 *
 * <p>Names: {@code ring} (consistent hashing, {@value RingPartitioner#DEFAULT_VIRTUAL_NODES} virtual
 * nodes per node unless given), {@code rendezvous}, {@code modn}, {@code jump}, {@code maglev}.
 */
public final class Partitioners {
    private static final List<String> NAMES = List.of("ring", "rendezvous", "modn", "jump", "maglev");

    private Partitioners() {
    }

    /** The names {@link #create} accepts. */
    public static List<String> names() {
        return NAMES;
    }

    /** A partitioner of the given name over {@code nodes}, with the default ring size. */
    public static Partitioner create(String name, List<String> nodes) {
        return create(name, nodes, RingPartitioner.DEFAULT_VIRTUAL_NODES);
    }

    /**
     * A partitioner of the given name over {@code nodes}; {@code virtualNodesPerNode} applies to
     * {@code ring} only.
     *
     * @throws IllegalArgumentException for an unknown name, no nodes, blank or duplicate nodes, or
     *                                  fewer than one virtual node
     */
    public static Partitioner create(String name, List<String> nodes, int virtualNodesPerNode) {
        if (name == null) {
            throw new IllegalArgumentException("partitioner name is missing; expected one of " + NAMES);
        }
        switch (name) {
            case "ring":
                return new RingPartitioner(nodes, virtualNodesPerNode);
            case "rendezvous":
                return new RendezvousPartitioner(nodes);
            case "modn":
                return new ModNPartitioner(nodes);
            case "jump":
                return new JumpPartitioner(nodes);
            case "maglev":
                return new MaglevPartitioner(nodes);
            default:
                throw new IllegalArgumentException("unknown partitioner '" + name + "'; expected one of " + NAMES);
        }
    }
}
